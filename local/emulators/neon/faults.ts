// Fault switches and counters of the local Neon proxy, shared by its HTTP and WebSocket paths.

export interface NeonProxyFaults {
  /** refuse: drop every new HTTP request and WebSocket as if Postgres were unreachable; delayMs: answer late. */
  set(faults: { refuse?: boolean; delayMs?: number }): void;
  clear(): void;
}

export interface NeonProxyStats {
  /** HTTP requests received (each `neon()` query or `transaction()` batch is one). */
  httpRequests: number;
  /** WebSocket upgrade requests received (each driver Client connection is one). */
  wsConnections: number;
  reset(): void;
}

export interface FaultState extends NeonProxyFaults {
  readonly refuse: boolean;
  readonly delayMs: number;
}

export function createFaultState(): FaultState {
  let refuse = false;
  let delayMs = 0;
  return {
    get refuse() {
      return refuse;
    },
    get delayMs() {
      return delayMs;
    },
    set(faults) {
      if (faults.refuse !== undefined) refuse = faults.refuse;
      if (faults.delayMs !== undefined) delayMs = Math.max(0, faults.delayMs);
    },
    clear() {
      refuse = false;
      delayMs = 0;
    },
  };
}

export function createStats(): NeonProxyStats {
  return {
    httpRequests: 0,
    wsConnections: 0,
    reset() {
      this.httpRequests = 0;
      this.wsConnections = 0;
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

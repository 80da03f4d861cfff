// Switchable fault injection, so tests and benchmarks can make the proxy refuse, stall or fail chosen commands.
export interface ProxyFaultSettings {
  /** Destroy every incoming connection without an answer (a network error for the client). */
  refuse?: boolean;
  /** Hold every request this long before handling it. */
  delayMs?: number;
  /** Lowercase command names (e.g. 'evalsha'); each matching command answers "ERR injected fault". */
  failCommands?: string[];
}

export const INJECTED_FAULT_ERROR = 'ERR injected fault';

export interface FaultSwitch {
  /** Replaces the current settings as a whole. */
  set(settings: ProxyFaultSettings): void;
  clear(): void;
  readonly refuse: boolean;
  readonly delayMs: number;
  fails(commandName: string): boolean;
}

export function createFaultSwitch(onRefuse: () => void): FaultSwitch {
  let current: ProxyFaultSettings = {};
  let failing = new Set<string>();
  return {
    set(settings) {
      current = { ...settings };
      failing = new Set((settings.failCommands ?? []).map((name) => name.toLowerCase()));
      // Keep-alive sockets opened before the switch would otherwise still be served.
      if (current.refuse === true) onRefuse();
    },
    clear() {
      current = {};
      failing = new Set();
    },
    get refuse() {
      return current.refuse === true;
    },
    get delayMs() {
      return Math.max(0, current.delayMs ?? 0);
    },
    fails(commandName) {
      return failing.has(commandName);
    },
  };
}

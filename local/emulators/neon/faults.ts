// Fault switches and counters of the local Neon proxy, shared by its HTTP and WebSocket paths.

/** Which `/sql` requests a statement fault hits: those with a statement matching `matching` (all when unset), `times` of them. */
export interface StatementFault {
  matching?: RegExp;
  /** How many matching requests it hits before it heals by itself; unset: until cleared. */
  times?: number;
}

export interface NeonProxyFaultSettings {
  /** Drop every new HTTP request and WebSocket, as if PostgreSQL were unreachable. */
  refuse?: boolean;
  /** Answer every HTTP request and WebSocket this late; the SQL still runs, after the delay. */
  delayMs?: number;
  /** A hung database: hold matching `/sql` requests unanswered, their SQL never run, until the fault is cleared. */
  hang?: boolean | StatementFault;
  /** A lost reply: run and commit matching `/sql` requests, then cut the client's connection without an answer. */
  cutAfterCommit?: boolean | StatementFault;
}

export interface NeonProxyFaults {
  /** Sets the given faults and leaves the others as they are; `false` switches one off. */
  set(faults: NeonProxyFaultSettings): void;
  /** Switches every fault off; requests held by `hang` are cut, their SQL never run. */
  clear(): void;
}

export interface NeonProxyStats {
  /** HTTP requests received (each `neon()` query or `transaction()` batch is one). */
  httpRequests: number;
  /** WebSocket upgrade requests received (each driver Client connection is one). */
  wsConnections: number;
  /**
   * Statements the client sent over `/sql` (a `transaction()` batch counts each of its statements, not the BEGIN and
   * COMMIT the proxy adds); what a WebSocket carries is not parsed, so not counted.
   */
  statements: number;
  /** The text of each `/sql` request's first statement since the last reset (the first 10 000), so a test can tell reads apart. */
  requestTexts: string[];
  /** `/sql` requests held by `hang`. */
  heldRequests: number;
  /** `/sql` requests committed and then cut by `cutAfterCommit`. */
  cutReplies: number;
  reset(): void;
}

/** What the SQL-over-HTTP endpoint asks before running a request and after committing it. */
export interface SqlFaults {
  /** Resolves when a matching request must stop waiting (the fault was cleared or the proxy closes); undefined: run it. */
  holdIfHung(statements: string[]): Promise<void> | undefined;
  /** True when the committed request's reply must be lost (counts one hit). */
  cutAfterCommit(statements: string[]): boolean;
}

export interface FaultState extends NeonProxyFaults, SqlFaults {
  readonly refuse: boolean;
  readonly delayMs: number;
}

interface ArmedFault {
  matching: RegExp | undefined;
  remaining: number;
}

function arm(setting: boolean | StatementFault): ArmedFault | undefined {
  if (setting === false) return undefined;
  const { matching, times } = setting === true ? {} : setting;
  // Without g or y, test() keeps no state between statements.
  const stateless = matching === undefined ? undefined : new RegExp(matching.source, matching.flags.replace(/[gy]/g, ''));
  return { matching: stateless, remaining: times ?? Number.POSITIVE_INFINITY };
}

/** Counts one hit when `statements` match the armed fault; a fault whose hits are spent no longer matches. */
function hits(fault: ArmedFault | undefined, statements: string[]): boolean {
  if (fault === undefined || fault.remaining <= 0) return false;
  const { matching } = fault;
  if (matching !== undefined && !statements.some((text) => matching.test(text))) return false;
  fault.remaining -= 1;
  return true;
}

export function createFaultState(stats: NeonProxyStats): FaultState {
  let refuse = false;
  let delayMs = 0;
  let hang: ArmedFault | undefined;
  let cut: ArmedFault | undefined;
  const held = new Set<() => void>();
  const releaseHeld = () => {
    for (const release of held) release();
    held.clear();
  };
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
      if (faults.hang !== undefined) {
        hang = arm(faults.hang);
        if (hang === undefined) releaseHeld();
      }
      if (faults.cutAfterCommit !== undefined) cut = arm(faults.cutAfterCommit);
    },
    clear() {
      refuse = false;
      delayMs = 0;
      hang = undefined;
      cut = undefined;
      releaseHeld();
    },
    holdIfHung(statements) {
      if (!hits(hang, statements)) return undefined;
      stats.heldRequests += 1;
      return new Promise<void>((resolve) => held.add(resolve));
    },
    cutAfterCommit(statements) {
      if (!hits(cut, statements)) return false;
      stats.cutReplies += 1;
      return true;
    },
  };
}

export function createStats(): NeonProxyStats {
  return {
    httpRequests: 0,
    wsConnections: 0,
    statements: 0,
    requestTexts: [],
    heldRequests: 0,
    cutReplies: 0,
    reset() {
      this.requestTexts = [];
      this.httpRequests = 0;
      this.wsConnections = 0;
      this.statements = 0;
      this.heldRequests = 0;
      this.cutReplies = 0;
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

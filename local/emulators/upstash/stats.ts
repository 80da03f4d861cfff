// Counts HTTP round trips and the Redis commands inside them, which is how benchmarks measure Redis round trips per call;
// and keeps the slotting errors a Redis Cluster answered, which the cluster test run requires to be none.
export interface ProxyStats {
  /** HTTP requests served, one per client round trip (401 and 400 answers included). */
  requests: number;
  /** Redis commands inside well-formed, authorised requests. */
  commands: number;
  /** Requests a lagging replica answered (the rest went to the primary). */
  replicaReads: number;
  /** The first slotting errors seen (CROSSSLOT, a script reaching another slot, MOVED/ASK/TRYAGAIN/CLUSTERDOWN), as `COMMAND: error`. */
  slotErrors: string[];
  /**
   * Replies of NOSCRIPT: a script runner (lib/redis/run-script.ts) then sends the script's text, one round trip more,
   * once per Redis (per cluster node) that has not seen the script since it started or flushed its scripts.
   */
  noScriptReplies: number;
  reset(): void;
}

const SLOT_ERROR = /^(CROSSSLOT|MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b|hash to the same slot|non local key/;
// Enough to name the offenders; a run full of them does not grow memory without end.
const MAX_SLOT_ERRORS = 100;

export function createProxyStats(): ProxyStats {
  return {
    requests: 0,
    commands: 0,
    replicaReads: 0,
    slotErrors: [],
    noScriptReplies: 0,
    reset() {
      this.requests = 0;
      this.commands = 0;
      this.replicaReads = 0;
      this.slotErrors = [];
      this.noScriptReplies = 0;
    },
  };
}

/** Notes `error` when it is a slotting error, named by the command that got it, and counts NOSCRIPT replies. */
export function noteSlotError(stats: ProxyStats, command: string, error: string): void {
  if (error.startsWith('NOSCRIPT')) stats.noScriptReplies += 1;
  if (SLOT_ERROR.test(error) && stats.slotErrors.length < MAX_SLOT_ERRORS) stats.slotErrors.push(`${command.toUpperCase()}: ${error}`);
}

// Counts HTTP round trips and the Redis commands inside them, which is how benchmarks measure Redis round trips per call.
export interface ProxyStats {
  /** HTTP requests served, one per client round trip (401 and 400 answers included). */
  requests: number;
  /** Redis commands inside well-formed, authorised requests. */
  commands: number;
  reset(): void;
}

export function createProxyStats(): ProxyStats {
  return {
    requests: 0,
    commands: 0,
    reset() {
      this.requests = 0;
      this.commands = 0;
    },
  };
}

// Shares one in-flight promise per key among the callers of one isolate, so a burst of cache misses makes one attempt.

export class SingleFlight {
  private readonly pending = new Map<string, Promise<unknown>>();

  /** Runs `work` unless a call with the same key is in flight, in which case its promise is shared. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const existing = this.pending.get(key);
    if (existing !== undefined) return existing as Promise<T>;
    const started = work().finally(() => this.pending.delete(key));
    this.pending.set(key, started);
    return started;
  }
}

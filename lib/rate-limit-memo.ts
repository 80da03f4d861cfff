// What one isolate remembers between requests for the API rate limiter (lib/runtime/ratelimit/): callers it refused
// (until their retry-after ends) and whether the main store is in an outage, so a refusal and a WARN each cost at most
// once. Kept beside Deps, one per isolate like lib/single-flight.ts.

/** Bounds each map: a flood of distinct callers evicts the oldest entries instead of growing the isolate. */
const MAX_ENTRIES = 10_000;
/** After a failed count, the limiter lets requests through without asking Redis for this long, then asks again. */
export const OUTAGE_PROBE_MS = 5_000;

export interface RememberedRefusal {
  /** Which limit refused (its identity, as the limiter builds it: in memory only, never logged). */
  id: string;
  untilMs: number;
  /** What the limiter wants to answer with again (its limits' states). */
  detail: unknown;
}

export class RateLimitMemo {
  readonly #blocked = new Map<string, { untilMs: number; detail: unknown }>();
  #inOutage = false;
  #probeAtMs = 0;

  /** The first of `ids` this isolate refused and whose refusal still runs. */
  refusal(ids: readonly string[], nowMs: number): RememberedRefusal | undefined {
    for (const id of ids) {
      const entry = this.#blocked.get(id);
      if (entry === undefined) continue;
      if (entry.untilMs <= nowMs) {
        this.#blocked.delete(id);
        continue;
      }
      return { id, ...entry };
    }
    return undefined;
  }

  /** Remembers each refused identity until `untilMs`. */
  block(ids: readonly string[], untilMs: number, detail: unknown, nowMs: number): void {
    for (const id of ids) {
      this.#blocked.delete(id);
      this.#blocked.set(id, { untilMs, detail });
    }
    prune(this.#blocked, (entry) => entry.untilMs <= nowMs);
  }

  /** Forgets the refusals whose identity `lifted` matches (an operator lifted them; only this isolate hears of it). */
  forget(lifted: (id: string) => boolean): void {
    for (const id of [...this.#blocked.keys()]) if (lifted(id)) this.#blocked.delete(id);
  }

  /** True while a recent failure says not to ask Redis yet. */
  skipping(nowMs: number): boolean {
    return this.#inOutage && nowMs < this.#probeAtMs;
  }

  /** Records a failed count; true only for the first failure of an outage (the one that logs its WARN). */
  failed(nowMs: number): boolean {
    const first = !this.#inOutage;
    this.#inOutage = true;
    this.#probeAtMs = nowMs + OUTAGE_PROBE_MS;
    return first;
  }

  /** A count answered: the outage, if any, is over. */
  answered(): void {
    this.#inOutage = false;
  }
}

function prune<V>(map: Map<string, V>, expired: (value: V) => boolean): void {
  if (map.size <= MAX_ENTRIES) return;
  for (const [id, value] of map) if (expired(value)) map.delete(id);
  // Still full: the oldest go first (a Map iterates in insertion order).
  for (const id of map.keys()) {
    if (map.size <= MAX_ENTRIES) break;
    map.delete(id);
  }
}

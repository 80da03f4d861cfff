// What one isolate remembers between requests: callers it refused (until their window ends), plans it asked for,
// and whether the main store is in an outage, so a refusal, a plan fill and a WARN each cost at most once.
import { subjectOf, type RateLimitTarget } from './counters.ts';
import type { LimitState, RateLimitDecision } from './decision.ts';
import type { RateLimitKind } from './limits.ts';

/** Bounds each map: a flood of distinct callers evicts the oldest entries instead of growing the isolate. */
const MAX_ENTRIES = 10_000;
/** After a failed count, the limiter lets requests through without asking Redis for this long, then asks again. */
export const OUTAGE_PROBE_MS = 5_000;
/** A plan entry found missing is filled at most this often per organisation per isolate. */
const PLAN_FILL_INTERVAL_MS = 60_000;

type Refusal = Extract<RateLimitDecision, { allowed: false }>;

export class RateLimitMemo {
  readonly #blocked = new Map<string, { untilMs: number; limits: LimitState[] }>();
  readonly #planFills = new Map<string, number>();
  #inOutage = false;
  #probeAtMs = 0;

  /** A refusal this isolate already saw for one of the target's limits, its retry-after counted down; no round trip. */
  refusal(target: RateLimitTarget, nowMs: number): Refusal | undefined {
    for (const kind of KINDS) {
      const id = identity(kind, target);
      const entry = id === undefined ? undefined : this.#blocked.get(id);
      if (entry === undefined) continue;
      if (entry.untilMs <= nowMs) {
        this.#blocked.delete(id!);
        continue;
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((entry.untilMs - nowMs) / 1_000));
      return {
        allowed: false,
        retryAfterSeconds,
        refused: [kind],
        limits: entry.limits.map((limit) => (limit.kind === kind ? { ...limit, remaining: 0, resetSeconds: retryAfterSeconds } : limit)),
      };
    }
    return undefined;
  }

  /** Remembers each limit that refused until its retry-after has passed. */
  block(target: RateLimitTarget, decision: Refusal, nowMs: number): void {
    for (const kind of decision.refused) {
      const id = identity(kind, target);
      if (id === undefined) continue;
      this.#blocked.delete(id);
      this.#blocked.set(id, { untilMs: nowMs + decision.retryAfterSeconds * 1_000, limits: decision.limits });
    }
    prune(this.#blocked, (entry) => entry.untilMs <= nowMs);
  }

  /** Forgets a tenant's refusal, or a user's (an operator lifted it; only this isolate hears of it). */
  forget(lifted: { kind: 'tenant'; organizationId: string } | { kind: 'user'; userId: string }): void {
    for (const id of [...this.#blocked.keys()]) {
      const [kind, , subject = ''] = id.split('|');
      const matches =
        lifted.kind === 'tenant'
          ? kind === 'tenant' && subject === lifted.organizationId
          : kind !== 'tenant' && subject.startsWith(lifted.userId);
      if (matches) this.#blocked.delete(id);
    }
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

  /** True when this organisation's plan entry should be filled now (not asked for within the interval). */
  planFillDue(organizationId: string, nowMs: number): boolean {
    const last = this.#planFills.get(organizationId);
    if (last !== undefined && nowMs - last < PLAN_FILL_INTERVAL_MS) return false;
    this.#planFills.delete(organizationId);
    this.#planFills.set(organizationId, nowMs);
    prune(this.#planFills, (at) => nowMs - at >= PLAN_FILL_INTERVAL_MS);
    return true;
  }
}

const KINDS: RateLimitKind[] = ['tenant', 'user', 'user-route'];

/** In memory only: the counter's scope and raw subject (never logged, never in a key). */
function identity(kind: RateLimitKind, target: RateLimitTarget): string | undefined {
  if (kind === 'tenant' && target.organizationId === undefined) return undefined;
  return `${kind}|${target.organizationId ?? ''}|${subjectOf(kind, target)}`;
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

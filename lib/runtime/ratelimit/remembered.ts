// The isolate's memory of refusals (lib/rate-limit-memo.ts) in the limiter's terms: which limit of which caller.
import type { Deps } from '../../deps.ts';
import { subjectOf, type RateLimitTarget } from './counters.ts';
import type { LimitState, RateLimitDecision } from './decision.ts';
import type { RateLimitKind } from './limits.ts';

type Refusal = Extract<RateLimitDecision, { allowed: false }>;

const KINDS: RateLimitKind[] = ['tenant', 'user', 'user-route'];

/** In memory only: the limit, the counter's organisation and the raw subject (never logged, never in a key). */
function identity(kind: RateLimitKind, target: RateLimitTarget): string | undefined {
  if (kind === 'tenant' && target.organizationId === undefined) return undefined;
  return `${kind}|${target.organizationId ?? ''}|${subjectOf(kind, target)}`;
}

/** A refusal this isolate already gave one of the target's limits, its retry-after counted down; no round trip. */
export function rememberedRefusal(deps: Pick<Deps, 'rateLimits'>, target: RateLimitTarget, nowMs: number): Refusal | undefined {
  const ids = KINDS.flatMap((kind) => identity(kind, target) ?? []);
  const found = deps.rateLimits.refusal(ids, nowMs);
  if (found === undefined) return undefined;
  const kind = found.id.split('|')[0] as RateLimitKind;
  const retryAfterSeconds = Math.max(1, Math.ceil((found.untilMs - nowMs) / 1_000));
  // Only rememberRefusal below writes the detail: the limits of the decision that refused.
  const limits = found.detail as LimitState[];
  return {
    allowed: false,
    retryAfterSeconds,
    refused: [kind],
    limits: limits.map((limit) => (limit.kind === kind ? { ...limit, remaining: 0, resetSeconds: retryAfterSeconds } : limit)),
  };
}

/** Remembers each limit that refused until the decision's retry-after has passed. */
export function rememberRefusal(deps: Pick<Deps, 'rateLimits'>, target: RateLimitTarget, decision: Refusal, nowMs: number): void {
  const ids = decision.refused.flatMap((kind) => identity(kind, target) ?? []);
  deps.rateLimits.block(ids, nowMs + decision.retryAfterSeconds * 1_000, decision.limits, nowMs);
}

/** Forgets this isolate's refusals of a lifted tenant, or of a lifted user (its own limits, in any organisation). */
export function forgetRefusals(
  deps: Pick<Deps, 'rateLimits'>,
  lifted: { kind: 'tenant'; organizationId: string } | { kind: 'user'; userId: string },
): void {
  deps.rateLimits.forget((id) => {
    const [kind, , subject = ''] = id.split('|');
    return lifted.kind === 'tenant'
      ? kind === 'tenant' && subject === lifted.organizationId
      : kind !== 'tenant' && subject.startsWith(lifted.userId);
  });
}

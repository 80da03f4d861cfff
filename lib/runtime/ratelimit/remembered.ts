// The isolate's memory of refusals (lib/rate-limit-memo.ts) in the limiter's terms: which limit of which caller.
import type { Deps } from '../../deps.ts';
import { subjectOf, type RateLimitTarget } from './counters.ts';
import type { LimitState, RateLimitDecision } from './decision.ts';
import type { RateLimitKind } from './limits.ts';

type Refusal = Extract<RateLimitDecision, { allowed: false }>;

/**
 * In memory only: the limit, the counter's organisation ('' in the user's own scope) and the raw subject (never logged,
 * never in a key). A tenant's refusal is remembered per member who met it, never for the whole organisation: an outsider
 * never meets a remembered tenant refusal, so none learns from it that the tenant is full.
 */
function identity(limit: Pick<LimitState, 'kind' | 'userScope'>, target: RateLimitTarget): string | undefined {
  if (limit.kind === 'tenant') return target.organizationId !== undefined ? `tenant|${target.organizationId}|${target.userId}` : undefined;
  const organizationId = limit.userScope === true ? undefined : target.organizationId;
  return `${limit.kind}|${organizationId ?? ''}|${subjectOf(limit.kind, { ...target, organizationId })}`;
}

function identities(target: RateLimitTarget, acrossOrganisations: boolean): string[] {
  const own: Array<Pick<LimitState, 'kind' | 'userScope'>> = [{ kind: 'tenant' }, { kind: 'user' }, { kind: 'user-route' }];
  if (acrossOrganisations) own.push({ kind: 'user', userScope: true }, { kind: 'user-route', userScope: true });
  return own.flatMap((limit) => identity(limit, target) ?? []);
}

/**
 * A refusal this isolate already gave one of the target's limits, its retry-after counted down; no round trip.
 * `acrossOrganisations`: an unbound token on an organisation's route, whose user-scope limits count too.
 */
export function rememberedRefusal(
  deps: Pick<Deps, 'rateLimits'>,
  target: RateLimitTarget,
  nowMs: number,
  acrossOrganisations = false,
): Refusal | undefined {
  const found = deps.rateLimits.refusal(identities(target, acrossOrganisations), nowMs);
  if (found === undefined) return undefined;
  const kind = found.id.split('|')[0] as RateLimitKind;
  const retryAfterSeconds = Math.max(1, Math.ceil((found.untilMs - nowMs) / 1_000));
  // Only rememberRefusal below writes the detail: the limits of the decision that refused, as that caller saw them.
  const limits = found.detail as LimitState[];
  return {
    allowed: false,
    retryAfterSeconds,
    refused: [kind],
    limits: limits.map((limit) => (limit.kind === kind ? { ...limit, remaining: 0, resetSeconds: retryAfterSeconds } : limit)),
  };
}

/**
 * Remembers each limit that refused until its own wait has passed. A tenant's refusal only when the role check admitted
 * the caller (`admitted`); `decision` is what the caller was answered (without the tenant's limit for anyone else).
 */
export function rememberRefusal(
  deps: Pick<Deps, 'rateLimits'>,
  target: RateLimitTarget,
  decision: Refusal,
  nowMs: number,
  admitted: boolean,
): void {
  for (const limit of decision.limits) {
    if (!decision.refused.includes(limit.kind) || (limit.kind === 'tenant' && !admitted)) continue;
    const id = identity(limit, target);
    if (id !== undefined) deps.rateLimits.block([id], nowMs + limit.resetSeconds * 1_000, decision.limits, nowMs);
  }
}

/** Forgets this isolate's refusals of a lifted tenant, or of a lifted user (its own limits, in any organisation). */
export function forgetRefusals(
  deps: Pick<Deps, 'rateLimits'>,
  lifted: { kind: 'tenant'; organizationId: string } | { kind: 'user'; userId: string },
): void {
  deps.rateLimits.forget((id) => {
    const [kind, organizationId, subject = ''] = id.split('|');
    return lifted.kind === 'tenant'
      ? kind === 'tenant' && organizationId === lifted.organizationId
      : kind !== 'tenant' && subject.startsWith(lifted.userId);
  });
}

// rateLimit.lift: an operator ends a tenant's or a user's block now: the audit row, then one DEL of its windows per scope.
import type { Deps } from '../../deps.ts';
import { conditionalAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { redisCall } from '../../redis/index.ts';
import { subjectCounters, type BlockSubject } from './blocked-counters.ts';
import { forgetRefusals } from './remembered.ts';

export type LiftOutcome = { ok: true; cleared: number } | { ok: false; reason: 'not-found' };

/**
 * The row first (naming the operator and what was lifted), so no lift goes unrecorded; then the counters of the
 * current, previous and next windows are deleted, so the next request counts from zero. An isolate that refused the caller
 * from its own memory keeps refusing until that refusal's retry-after ends (at most one window): no round trip
 * reaches it. This isolate forgets its own at once.
 */
export async function liftBlock(
  deps: Deps,
  input: { subject: BlockSubject; operatorId: string; correlationId: string },
): Promise<LiftOutcome> {
  const { subject } = input;
  const organizationId = subject.organizationId ?? null;
  const audit = conditionalAuditInsert(
    {
      action: 'ratelimit.lifted',
      actorUserId: null,
      organizationId,
      locationId: null,
      targetId: subject.kind === 'tenant' ? subject.organizationId : subject.userId,
      correlationId: input.correlationId,
      details: { operatorId: input.operatorId, limit: subject.kind, route: subject.kind === 'user' && subject.route !== undefined },
    },
    new Date(deps.clock.now()),
    'EXISTS (SELECT 1 FROM target)',
    2,
  );
  // The tenant must exist; a user is lifted in an organisation that exists, or on its own routes.
  const rows = await dbCall('commit', 'ratelimit.lift', (signal) =>
    deps.db.query<{ found: boolean }>(
      `WITH target AS (SELECT 1 WHERE $1::uuid IS NULL OR EXISTS (SELECT 1 FROM organizations WHERE id = $1::uuid)),
            audit AS (${audit.text})
       SELECT EXISTS (SELECT 1 FROM target) AS found`,
      [organizationId, ...audit.params],
      { signal },
    ),
  );
  if (rows[0]?.found !== true) return { ok: false, reason: 'not-found' };
  const { limits } = await subjectCounters(deps, subject, deps.clock.now());
  // A user lifted in an organisation: the same limits in the user's own scope too, where an unbound token's requests
  // there also count (docs/design/limits.md#outsiders-spend-nothing); left alone, they would go on refusing.
  const own =
    subject.kind === 'user' && subject.organizationId !== undefined
      ? (
          await subjectCounters(
            deps,
            { kind: 'user', userId: subject.userId, ...(subject.route !== undefined ? { route: subject.route } : {}) },
            deps.clock.now(),
          )
        ).limits
      : [];
  const keysOf = (of: typeof limits) => of.flatMap((limit) => [limit.currentKey, limit.previousKey, limit.nextKey]);
  // retrySafe: deleting twice is deleting once. One DEL per scope: two hash tags are two slots on a cluster.
  const deleted = await Promise.all(
    [limits, own].filter((of) => of.length > 0).map((of) => redisCall('ratelimit.lift', () => deps.redis.retrySafe.del(...keysOf(of)))),
  );
  const cleared = deleted.reduce((sum, count) => sum + count, 0);
  forgetRefusals(
    deps,

    subject.kind === 'tenant' ? { kind: 'tenant', organizationId: subject.organizationId } : { kind: 'user', userId: subject.userId },
  );
  return { ok: true, cleared };
}

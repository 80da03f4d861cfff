// The scheduled invite expiry: records `invite.expired` for each invite whose time ran out with no outcome, once no outcome can still arrive.
import { INVITE_RECEIPT_TTL_SECONDS } from '../../keys/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { CronTask, TaskReport } from '../cron-task/task.ts';
import type { Deps } from '../../deps.ts';
import { firstUuidv7At } from './invite-organizations.ts';

const NAME = 'invite-expiry';
/** Invites recorded per statement. */
export const EXPIRY_BATCH = 200;
/** Past the receipts' life: clock skew between instances and the database. */
const MARGIN_SECONDS = 15 * 60;
/** How far back a run looks past the newest invite that could have expired: a day of missed runs is caught up. */
const LOOKBACK_SECONDS = 24 * 60 * 60;

/**
 * An invite lives in Redis only (lib/runtime/invites/create-invite.ts); PostgreSQL learns that it ended by an outcome
 * (invite_outcomes: accepted or cancelled) or, here, by its expiry. Its expiry is the latest `expiresAtUtc` of its
 * `invite.created` and `invite.resent` rows (a resend restarts it). An accept that took the invite before that time
 * writes its outcome at once, or the reconciler does from its receipt while the receipt lives
 * (INVITE_RECEIPT_TTL_SECONDS), so an invite is recorded as expired only once its expiry is older than the receipts'
 * life and a margin: by then no outcome can arrive, and none is recorded beside it. The event invite.expired follows
 * from the row (migrations/0028_webhook_endpoints.sql), some 75 minutes after the invite stopped working.
 *
 * The row's details are copied from the invite's own audit row, which lib/pg/audit.ts validated when it was written.
 *
 * Bounded (batches, each counted), idempotent and safe beside itself: each batch runs under a transaction-scoped
 * advisory lock and writes only invites with no `invite.expired` row yet, so two runs never record one twice. The read
 * is bounded by the time-ordered audit ids (lib/runtime/invites/invite-organizations.ts reads the same way).
 */
export const inviteExpiryTask: CronTask = {
  name: NAME,
  async run(deps, budget, context) {
    const report: TaskReport = { task: NAME, visited: 0, removed: 0, repaired: 0, commands: 0, done: false };
    const spentBefore = budget.used();
    for (;;) {
      if (budget.exhausted() || budget.commandsLeft() < 1) break;
      budget.spend(1);
      const recorded = await recordExpiredInvites(deps, context.correlationId);
      report.visited += recorded;
      report.removed += recorded;
      if (recorded < EXPIRY_BATCH) {
        report.done = true;
        break;
      }
    }
    report.commands = budget.used() - spentBefore;
    return report;
  },
};

/** One batch: how many invites it recorded as expired. */
export async function recordExpiredInvites(deps: Deps, correlationId: string): Promise<number> {
  const nowMs = deps.clock.now();
  const cutoff = new Date(nowMs - (INVITE_RECEIPT_TTL_SECONDS + MARGIN_SECONDS) * 1000);
  const since = new Date(cutoff.getTime() - (deps.config.inviteTtlSeconds + LOOKBACK_SECONDS) * 1000);
  const [, inserted] = await dbCall('commit', 'invites.expiry.record', (signal) =>
    deps.db.transaction(
      [
        { text: "SELECT pg_advisory_xact_lock(hashtextextended('invite-expiry', 0))", params: [] },
        {
          text: `WITH lives AS (
                   SELECT DISTINCT ON (target_id) target_id, organization_id, location_id, details
                     FROM audit_events
                    WHERE id >= $1::uuid AND occurred_at >= $2 AND action IN ('invite.created', 'invite.resent')
                      AND organization_id IS NOT NULL AND target_id IS NOT NULL
                    ORDER BY target_id, occurred_at DESC, id DESC
                 ), ended AS (
                   SELECT l.* FROM lives l
                    WHERE (l.details ->> 'expiresAtUtc')::timestamptz < $3
                      AND NOT EXISTS (SELECT 1 FROM invite_outcomes o WHERE o.invite_id = l.target_id)
                      AND NOT EXISTS (SELECT 1 FROM audit_events a
                                       WHERE a.id >= $1::uuid AND a.action = 'invite.expired' AND a.target_id = l.target_id)
                    ORDER BY l.target_id
                    LIMIT $4
                 )
                 INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, details)
                 SELECT webhook_uuidv7($5), $5, NULL, organization_id, location_id, target_id, 'invite.expired', $6,
                        jsonb_build_object('roleCode', details -> 'roleCode', 'expiresAtUtc', details -> 'expiresAtUtc')
                   FROM ended
                 RETURNING id`,
          params: [
            firstUuidv7At(since.getTime()),
            since.toISOString(),
            cutoff.toISOString(),
            EXPIRY_BATCH,
            new Date(nowMs).toISOString(),
            correlationId,
          ],
        },
      ],
      { signal },
    ),
  );
  return inserted?.length ?? 0;
}

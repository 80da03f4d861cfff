// Writes what one attempt came to, fenced: only the attempt the sender read can end or reschedule a delivery, once.
import { computedAuditInsert, conditionalAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';

/** An endpoint whose deliveries have failed without a success for this long is disabled ('failing') at its next failure. */
export const DISABLE_FAILING_AFTER_MS = 5 * 86_400_000;

export type AttemptOutcome =
  | { kind: 'succeeded'; status: number }
  /** Failed; tried again at `nextAttemptAtMs`. */
  | { kind: 'retry'; status: number | null; reason: string; nextAttemptAtMs: number }
  /** Failed for good: the schedule is spent, or the endpoint is disabled (nothing was sent then: `sent` false). */
  | { kind: 'failed'; status: number | null; reason: string; sent: boolean };

export interface AttemptRead {
  deliveryId: string;
  organizationId: string;
  endpointId: string;
  /** The attempt count the sender read under its lease: the fence. */
  attempts: number;
}

export interface RecordedOutcome {
  /** False when the delivery was no longer pending at that count: a later attempt, or an admin's retry, got there first. */
  recorded: boolean;
  /** True when this failure disabled the endpoint (failing for DISABLE_FAILING_AFTER_MS). */
  endpointDisabled: boolean;
}

/**
 * One statement. The delivery's UPDATE holds only while it is still pending with the attempt count read before the send
 * (`attempts = $2`), so a sender whose lease expired mid-send cannot overwrite, or end a second time, what a later
 * sender wrote; everything else in the statement hangs on that row having changed. A success clears the endpoint's
 * failing_since; a failure sets it if unset, and disables the endpoint once it is older than DISABLE_FAILING_AFTER_MS.
 * A delivery failed for good, and an endpoint disabled, are each audited in the same statement.
 */
export async function recordOutcome(
  deps: Deps,
  read: AttemptRead,
  outcome: AttemptOutcome,
  correlationId: string,
): Promise<RecordedOutcome> {
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);
  const state = outcome.kind === 'succeeded' ? 'succeeded' : outcome.kind === 'retry' ? 'pending' : 'failed';
  // What the attempt says of the endpoint: nothing when nothing was sent.
  const endpointEffect = outcome.kind === 'succeeded' ? 'success' : outcome.kind === 'failed' && !outcome.sent ? 'none' : 'failure';
  const params: unknown[] = [
    read.deliveryId,
    read.attempts,
    state,
    now.toISOString(),
    outcome.status,
    outcome.kind === 'succeeded' ? null : outcome.reason,
    outcome.kind === 'retry' ? new Date(outcome.nextAttemptAtMs).toISOString() : null,
    endpointEffect,
    new Date(nowMs - DISABLE_FAILING_AFTER_MS).toISOString(),
  ];
  const audits: string[] = [];
  if (outcome.kind === 'failed') {
    const audit = computedAuditInsert(
      {
        action: 'webhook.delivery_failed',
        actorUserId: null,
        organizationId: read.organizationId,
        locationId: null,
        targetId: read.deliveryId,
        correlationId,
        details: {
          endpointId: read.endpointId,
          reason: outcome.reason,
          ...(outcome.status === null ? {} : { lastStatus: outcome.status }),
        },
      },
      now,
      { computed: { attempts: 'SELECT attempts FROM ended' }, when: 'EXISTS (SELECT 1 FROM ended)' },
      params.length + 1,
    );
    audits.push(`audit_failed AS (${audit.text})`);
    params.push(...audit.params);
  }
  if (endpointEffect === 'failure') {
    const audit = conditionalAuditInsert(
      {
        action: 'webhook.endpoint_disabled',
        actorUserId: null,
        organizationId: read.organizationId,
        locationId: null,
        targetId: read.endpointId,
        correlationId,
        details: { reason: 'failing' },
      },
      now,
      'EXISTS (SELECT 1 FROM endpoint WHERE disabled_now)',
      params.length + 1,
    );
    audits.push(`audit_disabled AS (${audit.text})`);
    params.push(...audit.params);
  }
  const rows = await dbCall('commit', 'webhook.delivery.record', (signal) =>
    deps.db.query<{ ended: number; disabled: boolean }>(
      `WITH ended AS (
         UPDATE webhook_endpoint_deliveries
            SET state = $3::text, attempts = attempts + 1, last_attempt_at = $4::timestamptz, last_status = $5::int,
                last_error = $6::text,
                next_attempt_at = CASE WHEN $3::text = 'pending' THEN $7::timestamptz ELSE next_attempt_at END,
                ended_at = CASE WHEN $3::text = 'pending' THEN NULL ELSE $4::timestamptz END
          WHERE id = $1::uuid AND state = 'pending' AND attempts = $2::int
         RETURNING endpoint_id, attempts
       ), endpoint AS (
         UPDATE webhook_endpoints e
            SET failing_since = CASE WHEN $8::text = 'success' THEN NULL ELSE COALESCE(e.failing_since, $4::timestamptz) END,
                state = CASE WHEN $8::text = 'failure' AND e.failing_since <= $9::timestamptz THEN 'disabled' ELSE e.state END,
                disabled_reason = CASE WHEN $8::text = 'failure' AND e.failing_since <= $9::timestamptz THEN 'failing' ELSE e.disabled_reason END,
                updated_at = CASE WHEN $8::text = 'failure' AND e.failing_since <= $9::timestamptz THEN $4::timestamptz ELSE e.updated_at END
          WHERE e.id = (SELECT endpoint_id FROM ended) AND e.state = 'enabled' AND $8::text <> 'none'
            AND ($8::text = 'failure' OR e.failing_since IS NOT NULL)
         RETURNING e.state = 'disabled' AS disabled_now
       )${audits.map((audit) => `, ${audit}`).join('')}
       SELECT (SELECT count(*) FROM ended)::int AS ended, COALESCE((SELECT bool_or(disabled_now) FROM endpoint), false) AS disabled`,
      params,
      { signal },
    ),
  );
  return { recorded: (rows[0]?.ended ?? 0) > 0, endpointDisabled: rows[0]?.disabled === true };
}

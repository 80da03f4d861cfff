// events.retry: an admin puts one delivery back to pending, due now; its audit row has it sent after the answer (lib/pg/new-deliveries.ts).
import { conditionalAuditInsert } from '../pg/audit.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';

export type RetryDeliveryOutcome = { ok: true } | { ok: false; reason: 'not-found' | 'succeeded' | 'endpoint-disabled' };

/**
 * One statement: the delivery, read under its row lock with its endpoint's state, is made pending and due now with its
 * attempts and backoff started afresh (schedule_started_at), and `webhook.delivery_retried` written, unless it
 * succeeded (a delivery that ended well is not sent twice) or its endpoint is disabled (enable it first). A pending
 * delivery is only made due now. Its id, and so its webhook-id, stays the same.
 */
export async function retryDelivery(
  deps: Deps,
  input: { organizationId: string; endpointId: string; deliveryId: string; actorUserId: string; correlationId: string },
): Promise<RetryDeliveryOutcome> {
  const now = new Date(deps.clock.now());
  const params = [input.deliveryId, input.endpointId, input.organizationId, now.toISOString()];
  const audit = conditionalAuditInsert(
    {
      action: 'webhook.delivery_retried',
      actorUserId: input.actorUserId,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.endpointId,
      correlationId: input.correlationId,
      details: { deliveryId: input.deliveryId },
    },
    now,
    'EXISTS (SELECT 1 FROM retried)',
    params.length + 1,
  );
  const rows = await dbCall('commit', 'events.delivery.retry', (signal) =>
    deps.db.query<{ state: string; endpoint_state: string }>(
      `WITH target AS MATERIALIZED (
         SELECT d.id, d.state, e.state AS endpoint_state
           FROM webhook_endpoint_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.id = $1 AND d.endpoint_id = $2 AND e.organization_id = $3
          FOR UPDATE OF d
       ), retried AS (
         UPDATE webhook_endpoint_deliveries d
            SET state = 'pending', next_attempt_at = $4, ended_at = NULL,
                attempts = CASE WHEN t.state = 'pending' THEN d.attempts ELSE 0 END,
                schedule_started_at = CASE WHEN t.state = 'pending' THEN d.schedule_started_at ELSE $4::timestamptz END
           FROM target t
          WHERE d.id = t.id AND t.state <> 'succeeded' AND t.endpoint_state = 'enabled'
         RETURNING d.id
       ), audited AS (${audit.text})
       SELECT state, endpoint_state FROM target`,
      [...params, ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  if (row.state === 'succeeded') return { ok: false, reason: 'succeeded' };
  if (row.endpoint_state !== 'enabled') return { ok: false, reason: 'endpoint-disabled' };
  return { ok: true };
}

// What a sender needs of each leased delivery, read after the lease was taken: only what is still pending and due.
import * as z from 'zod';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';

const attemptRowSchema = z.object({
  delivery_id: z.uuid(),
  organization_id: z.uuid(),
  endpoint_id: z.uuid(),
  attempts: z.number().int().nonnegative(),
  schedule_started_at: z.date(),
  url: z.string().min(1).max(2048),
  endpoint_state: z.enum(['enabled', 'disabled']),
  secret_key_id: z.string().min(1),
  secret_ciphertext: z.string().min(1),
  secret_version: z.number().int().positive(),
  previous_secret_key_id: z.string().min(1).nullable(),
  previous_secret_ciphertext: z.string().min(1).nullable(),
  previous_secret_version: z.number().int().positive().nullable(),
  previous_secret_until: z.date().nullable(),
  body: z.string().min(2),
});

export type AttemptRow = z.infer<typeof attemptRowSchema>;

/**
 * One query for every leased delivery. Read after the lease, never before: a delivery another isolate ended (or moved
 * to a later attempt) between the caller's first look and its lease is not found here, so it is not sent twice. The body
 * is the event's payload as PostgreSQL prints it, the same bytes on every attempt.
 */
export async function readAttempts(deps: Deps, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const rows = await dbCall('read', 'webhook.delivery.read', (signal) =>
    deps.db.query(
      `SELECT d.id AS delivery_id, d.organization_id, d.endpoint_id, d.attempts, d.schedule_started_at,
              e.url,
              -- A deleted organisation's deliveries end unsent, as a disabled endpoint's do.
              CASE WHEN o.state = 'deleted' THEN 'disabled' ELSE e.state END AS endpoint_state, e.secret_key_id, e.secret_ciphertext, e.secret_version,
              e.previous_secret_key_id, e.previous_secret_ciphertext, e.previous_secret_version, e.previous_secret_until,
              ev.payload::text AS body
         FROM webhook_endpoint_deliveries d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id
         JOIN webhook_events ev ON ev.id = d.event_id
         JOIN organizations o ON o.id = d.organization_id
        WHERE d.id = ANY($1::uuid[]) AND d.state = 'pending' AND d.next_attempt_at <= $2::timestamptz`,
      [deliveryIds, new Date(deps.clock.now()).toISOString()],
      { signal },
    ),
  );
  return rows.map((row) => attemptRowSchema.parse(row));
}

// events.deliveries: one endpoint's deliveries, newest first, one keyset page at a time.
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';
import { deliverySchema, type Delivery } from './delivery.ts';
import { decodeDeliveryCursor, encodeDeliveryCursor } from './delivery-cursor.ts';

export type DeliveryPage =
  { ok: true; deliveries: Delivery[]; nextCursor: string | null } | { ok: false; reason: 'bad-cursor' | 'not-found' };

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A page of `limit` deliveries older than the cursor's, by id descending (webhook_deliveries_endpoint_idx,
 * migrations/0028_webhook_endpoints.sql): a delivery made after a page was read has a newer id, so it never shifts a
 * later page. The endpoint must be the organisation's; one query tells a missing endpoint from an empty list.
 */
export async function listDeliveries(
  deps: Deps,
  request: { organizationId: string; endpointId: string; limit: number; cursor?: string },
): Promise<DeliveryPage> {
  const params: unknown[] = [request.endpointId, request.organizationId, request.limit + 1];
  let before = '';
  if (request.cursor !== undefined) {
    const position = decodeDeliveryCursor(request.cursor);
    if (position === undefined) return { ok: false, reason: 'bad-cursor' };
    before = 'AND d.id < $4::uuid';
    params.push(position);
  }
  const rows = await dbCall('read', 'events.deliveries.list', (signal) =>
    deps.db.query<Record<string, unknown>>(
      `SELECT e.id AS endpoint_id, d.id, d.event_id, v.type, d.state, d.attempts, d.last_status, d.last_error,
              ${iso('d.last_attempt_at')} AS last_attempt_at, ${iso('d.next_attempt_at')} AS next_attempt_at,
              ${iso('d.created_at')} AS created_at, ${iso('d.ended_at')} AS ended_at
         FROM webhook_endpoints e
         LEFT JOIN LATERAL (
           SELECT * FROM webhook_endpoint_deliveries d WHERE d.endpoint_id = e.id ${before} ORDER BY d.id DESC LIMIT $3
         ) d ON true
         LEFT JOIN webhook_events v ON v.id = d.event_id
        WHERE e.id = $1 AND e.organization_id = $2
        ORDER BY d.id DESC`,
      params,
      { signal },
    ),
  );
  if (rows.length === 0) return { ok: false, reason: 'not-found' };
  const found = rows.filter((row) => row.id !== null);
  const page = found.slice(0, request.limit);
  const last = page.at(-1);
  return {
    ok: true,
    deliveries: page.map((row) =>
      deliverySchema.parse({
        deliveryId: row.id,
        eventId: row.event_id,
        eventType: row.type,
        state: row.state,
        attempts: row.attempts,
        lastStatus: row.last_status,
        lastError: row.last_error,
        lastAttemptAt: row.last_attempt_at,
        nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
        createdAt: row.created_at,
        endedAt: row.ended_at,
      }),
    ),
    nextCursor: found.length > request.limit && last !== undefined ? encodeDeliveryCursor(last.id as string) : null,
  };
}

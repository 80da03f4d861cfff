// events.remove: deletes an endpoint and its deliveries (the events stay in the outbox), audited in the same statement.
import { conditionalAuditInsert } from '../pg/audit.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';

/** False when the organisation has no such endpoint (nothing written). */
export async function deleteEndpoint(
  deps: Deps,
  input: { organizationId: string; endpointId: string; actorUserId: string; correlationId: string },
): Promise<boolean> {
  const now = new Date(deps.clock.now());
  const params = [input.endpointId, input.organizationId];
  const audit = conditionalAuditInsert(
    {
      action: 'webhook.endpoint_deleted',
      actorUserId: input.actorUserId,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.endpointId,
      correlationId: input.correlationId,
    },
    now,
    'EXISTS (SELECT 1 FROM deleted)',
    params.length + 1,
  );
  // The deliveries go with it (ON DELETE CASCADE, migrations/0028_webhook_endpoints.sql): nothing is sent to it again.
  const rows = await dbCall('commit', 'events.endpoint.delete', (signal) =>
    deps.db.query(
      `WITH deleted AS (DELETE FROM webhook_endpoints WHERE id = $1 AND organization_id = $2 RETURNING id), audited AS (${audit.text})
       SELECT id FROM deleted`,
      [...params, ...audit.params],
      { signal },
    ),
  );
  return rows.length > 0;
}

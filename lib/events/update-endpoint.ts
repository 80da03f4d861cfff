// events.update: an admin changes an endpoint's URL, subscribed events, description, or enables or disables it, audited in the same statement.
import { conditionalAuditInsert } from '../pg/audit.ts';
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';
import { ENDPOINT_COLUMNS, endpointFromRow, type Endpoint } from './endpoint.ts';
import type { EventType } from './event-types.ts';
import { checkEndpointUrl } from './url-policy.ts';

export interface EndpointChange {
  url?: string;
  events?: EventType[];
  /** null clears it. */
  description?: string | null;
  state?: 'enabled' | 'disabled';
}

export type UpdateEndpointOutcome =
  | { ok: true; endpoint: Endpoint }
  | { ok: false; reason: 'bad-url' | 'forbidden-url'; problem: string }
  | { ok: false; reason: 'not-found' };

/**
 * One statement: the change and `webhook.endpoint_updated` (which fields, and the URL's host when it changed), written
 * only when the endpoint exists in this organisation. Disabling records the reason 'admin' (a disabled endpoint keeps
 * its first reason); enabling clears the reason and the failure clock, so an endpoint the engine disabled starts
 * afresh. Events already written stay pending; the engine sends nothing to a disabled endpoint.
 */
export async function updateEndpoint(
  deps: Deps,
  input: { organizationId: string; endpointId: string; change: EndpointChange; actorUserId: string; correlationId: string },
): Promise<UpdateEndpointOutcome> {
  const { change } = input;
  let url: string | null = null;
  if (change.url !== undefined) {
    const checked = await checkEndpointUrl(change.url, { appEnv: deps.config.appEnv, resolveHost: deps.resolveHost });
    if (!checked.ok) return { ok: false, reason: checked.reason === 'bad-url' ? 'bad-url' : 'forbidden-url', problem: checked.problem };
    url = checked.url;
  }
  const now = new Date(deps.clock.now());
  const fields = (['url', 'events', 'description', 'state'] as const).filter((field) => change[field] !== undefined);
  const params: unknown[] = [
    input.endpointId,
    input.organizationId,
    url,
    change.events === undefined ? null : [...new Set(change.events)],
    change.description !== undefined,
    change.description ?? null,
    change.state ?? null,
    now.toISOString(),
  ];
  const audit = conditionalAuditInsert(
    {
      action: 'webhook.endpoint_updated',
      actorUserId: input.actorUserId,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.endpointId,
      correlationId: input.correlationId,
      details: {
        fields: fields.join(','),
        ...(url === null ? {} : { host: new URL(url).host }),
        ...(change.state === undefined ? {} : { state: change.state }),
      },
    },
    now,
    'EXISTS (SELECT 1 FROM updated)',
    params.length + 1,
  );
  const rows = await dbCall('commit', 'events.endpoint.update', (signal) =>
    deps.db.query(
      `WITH updated AS (
         UPDATE webhook_endpoints SET
           url = COALESCE($3, url),
           events = COALESCE($4::text[], events),
           description = CASE WHEN $5::boolean THEN $6 ELSE description END,
           disabled_reason = CASE WHEN $7::text = 'enabled' THEN NULL
                                  WHEN $7::text = 'disabled' THEN COALESCE(disabled_reason, 'admin')
                                  ELSE disabled_reason END,
           failing_since = CASE WHEN $7::text = 'enabled' AND state = 'disabled' THEN NULL ELSE failing_since END,
           state = COALESCE($7::text, state),
           updated_at = $8
         WHERE id = $1 AND organization_id = $2
         RETURNING ${ENDPOINT_COLUMNS}
       ), audited AS (${audit.text})
       SELECT * FROM updated`,
      [...params, ...audit.params],
      { signal },
    ),
  );
  return rows[0] === undefined ? { ok: false, reason: 'not-found' } : { ok: true, endpoint: endpointFromRow(rows[0]) };
}

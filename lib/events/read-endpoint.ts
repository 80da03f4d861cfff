// events.read and events.list: an organisation's endpoints as the routes show them.
import { dbCall } from '../pg/unavailable.ts';
import type { Deps } from '../deps.ts';
import { ENDPOINT_COLUMNS, endpointFromRow, type Endpoint } from './endpoint.ts';

/** One endpoint of the organisation; undefined for an id of another organisation, as for none. */
export async function readEndpoint(deps: Deps, ref: { organizationId: string; endpointId: string }): Promise<Endpoint | undefined> {
  const rows = await dbCall('read', 'events.endpoint.read', (signal) =>
    deps.db.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND organization_id = $2`,
      [ref.endpointId, ref.organizationId],
      {
        signal,
      },
    ),
  );
  return rows[0] === undefined ? undefined : endpointFromRow(rows[0]);
}

/** Every endpoint of the organisation, oldest first: at most MAX_ENDPOINTS_PER_ORGANIZATION, so one page. */
export async function listEndpoints(deps: Deps, organizationId: string): Promise<Endpoint[]> {
  const rows = await dbCall('read', 'events.endpoint.list', (signal) =>
    deps.db.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id = $1 ORDER BY id`, [organizationId], { signal }),
  );
  return rows.map(endpointFromRow);
}

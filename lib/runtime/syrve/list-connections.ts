// syrve.list: an organisation's connections, oldest first — never a password or a session.
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { CONNECTION_COLUMNS, fromRow, toPublicConnection, type ConnectionRow, type PublicConnection } from './connection.ts';

/** Far above a restaurant group's RMS servers; keeps one answer bounded. */
export const MAX_CONNECTIONS_LISTED = 500;

export async function listConnections(deps: Deps, organizationId: string): Promise<PublicConnection[]> {
  const rows = await dbCall('read', 'syrve.connection.list', (signal) =>
    deps.db.query<ConnectionRow>(
      `SELECT ${CONNECTION_COLUMNS} FROM syrve_connections WHERE organization_id = $1 ORDER BY created_at, id LIMIT $2`,
      [organizationId, MAX_CONNECTIONS_LISTED],
      { signal },
    ),
  );
  return rows.map((row) => toPublicConnection(fromRow(row)));
}

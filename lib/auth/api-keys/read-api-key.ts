// apiKeys.read: one key of an organisation that is not revoked.
import type { Deps } from '../../deps.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { API_KEY_COLUMNS, apiKeyFromRow, type ApiKey, type ApiKeyRow } from './api-key.ts';

/** Undefined for a key of another organisation, a revoked one, or none. */
export async function readApiKey(deps: Deps, target: { organizationId: string; apiKeyId: string }): Promise<ApiKey | undefined> {
  const rows = await dbCall('read', 'apiKeys.read', (signal) =>
    deps.db.query<ApiKeyRow>(
      `SELECT ${API_KEY_COLUMNS} FROM api_keys k WHERE k.id = $1 AND k.organization_id = $2 AND k.revoked_at IS NULL`,
      [target.apiKeyId, target.organizationId],
      { signal },
    ),
  );
  const row = rows[0];
  return row === undefined ? undefined : apiKeyFromRow(row);
}

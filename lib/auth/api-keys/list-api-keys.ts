// apiKeys.list: an organisation's keys that are not revoked, in the order they were made, one keyset page at a time.
import type { Deps } from '../../deps.ts';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../pg/keyset-cursor.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { API_KEY_COLUMNS, apiKeyFromRow, type ApiKey, type ApiKeyRow } from './api-key.ts';

export type ApiKeyPage = { ok: true; apiKeys: ApiKey[]; nextCursor: string | null } | { ok: false; reason: 'bad-cursor' };

/**
 * Ordered by (created_at, id), which api_keys_organization_list_idx holds (migrations/0030_api_keys.sql): a key made
 * after a page was read lands on a later page. Expired keys stay listed until revoked, so an admin sees what stopped.
 */
export async function listApiKeys(deps: Deps, request: { organizationId: string; limit: number; cursor?: string }): Promise<ApiKeyPage> {
  const params: unknown[] = [request.organizationId, request.limit + 1];
  let after = '';
  if (request.cursor !== undefined) {
    const position = decodeKeysetCursor(request.cursor);
    if (position === undefined) return { ok: false, reason: 'bad-cursor' };
    after = 'AND (k.created_at, k.id) > ($3::timestamptz, $4::uuid)';
    params.push(position.at, position.id);
  }
  const rows = await dbCall('read', 'apiKeys.list', (signal) =>
    deps.db.query<ApiKeyRow>(
      `SELECT ${API_KEY_COLUMNS} FROM api_keys k
        WHERE k.organization_id = $1 AND k.revoked_at IS NULL ${after}
        ORDER BY k.created_at, k.id
        LIMIT $2`,
      params,
      { signal },
    ),
  );
  const page = rows.slice(0, request.limit);
  const last = page.at(-1);
  return {
    ok: true,
    apiKeys: page.map(apiKeyFromRow),
    nextCursor: rows.length > request.limit && last !== undefined ? encodeKeysetCursor({ at: last.created_at_exact, id: last.id }) : null,
  };
}

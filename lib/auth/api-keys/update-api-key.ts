// apiKeys.update: an organisation admin renames a key or replaces its scopes; a change of scopes holds from the next request.
import type { Deps } from '../../deps.ts';
import { conditionalAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { forgetCachedApiKey } from './forget-cached.ts';
import { API_KEY_COLUMNS, apiKeyFromRow, type ApiKey, type ApiKeyRow } from './api-key.ts';
import type { ApiKeyScope } from './scopes.ts';

export interface UpdateApiKeyInput {
  organizationId: string;
  apiKeyId: string;
  adminUserId: string;
  name: string | undefined;
  scopes: ApiKeyScope[] | undefined;
  correlationId: string;
}

export type UpdateApiKeyOutcome = { ok: true; apiKey: ApiKey } | { ok: false; reason: 'not-found' };

/**
 * One statement: the row (its version raised), the organisation's api_key_seq raised and `api_key.updated`, only when
 * something changed; then the key's cached entry is deleted, so new scopes hold from the next request
 * (docs/design/api-keys.md#cache).
 */
export async function updateApiKey(deps: Deps, input: UpdateApiKeyInput): Promise<UpdateApiKeyOutcome> {
  const audit = conditionalAuditInsert(
    {
      action: 'api_key.updated',
      actorUserId: input.adminUserId,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.apiKeyId,
      correlationId: input.correlationId,
      details: { renamed: input.name !== undefined, ...(input.scopes !== undefined ? { scopes: input.scopes.join(',') } : {}) },
    },
    new Date(deps.clock.now()),
    'EXISTS (SELECT 1 FROM changed)',
    5,
  );
  const rows = await dbCall('commit', 'apiKeys.update', (signal) =>
    deps.db.query<ApiKeyRow & { key_hash: string; changed: boolean }>(
      `WITH target AS (
         SELECT id FROM api_keys WHERE id = $1::uuid AND organization_id = $2::uuid AND revoked_at IS NULL FOR NO KEY UPDATE),
       changed AS (
         UPDATE api_keys k SET name = COALESCE($3, k.name), scopes = COALESCE($4::text[], k.scopes), version = k.version + 1
           FROM target WHERE k.id = target.id
            AND (k.name IS DISTINCT FROM COALESCE($3, k.name) OR k.scopes IS DISTINCT FROM COALESCE($4::text[], k.scopes))
         RETURNING k.*),
       bumped AS (UPDATE organizations SET api_key_seq = api_key_seq + 1 WHERE id = $2::uuid AND EXISTS (SELECT 1 FROM changed)),
       audit AS (${audit.text})
       SELECT ${API_KEY_COLUMNS}, k.key_hash, true AS changed FROM changed k
       UNION ALL
       SELECT ${API_KEY_COLUMNS}, k.key_hash, false AS changed FROM api_keys k JOIN target t ON t.id = k.id WHERE NOT EXISTS (SELECT 1 FROM changed)`,
      [input.apiKeyId, input.organizationId, input.name ?? null, input.scopes ?? null, ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  if (row.changed) await forgetCachedApiKey(deps, input.organizationId, row.key_hash, input.correlationId);
  return { ok: true, apiKey: apiKeyFromRow(row) };
}

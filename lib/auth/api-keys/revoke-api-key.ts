// apiKeys.revoke: an organisation admin revokes a key; the row's revoked_at is what every check of the key ends at.
import type { Deps } from '../../deps.ts';
import { conditionalAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { forgetCachedApiKey } from './forget-cached.ts';

export type RevokeApiKeyOutcome = { ok: true } | { ok: false; reason: 'not-found' };

/**
 * One statement: revoked_at and a raised version, the organisation's api_key_seq raised, and `api_key.revoked`; then the
 * key's cached entry is deleted (docs/design/api-keys.md#revocation).
 */
export async function revokeApiKey(
  deps: Deps,
  input: { organizationId: string; apiKeyId: string; adminUserId: string; correlationId: string },
): Promise<RevokeApiKeyOutcome> {
  const now = new Date(deps.clock.now());
  const audit = conditionalAuditInsert(
    {
      action: 'api_key.revoked',
      actorUserId: input.adminUserId,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.apiKeyId,
      correlationId: input.correlationId,
    },
    now,
    'EXISTS (SELECT 1 FROM revoked)',
    4,
  );
  const rows = await dbCall('commit', 'apiKeys.revoke', (signal) =>
    deps.db.query<{ id: string; key_hash: string }>(
      `WITH revoked AS (
         UPDATE api_keys SET revoked_at = $3::timestamptz, version = version + 1
          WHERE id = $1::uuid AND organization_id = $2::uuid AND revoked_at IS NULL
         RETURNING id, key_hash),
       bumped AS (UPDATE organizations SET api_key_seq = api_key_seq + 1 WHERE id = $2::uuid AND EXISTS (SELECT 1 FROM revoked)),
       audit AS (${audit.text})
       SELECT id, key_hash FROM revoked`,
      [input.apiKeyId, input.organizationId, now.toISOString(), ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  await forgetCachedApiKey(deps, input.organizationId, row.key_hash, input.correlationId);
  return { ok: true };
}

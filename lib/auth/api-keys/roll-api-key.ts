// apiKeys.roll: a new key in place of an old one, which keeps working until the overlap ends, so a client can switch without downtime.
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../deps.ts';
import { conditionalAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { forgetCachedApiKey } from './forget-cached.ts';
import { API_KEY_COLUMNS, apiKeyFromRow, type ApiKey, type ApiKeyRow } from './api-key.ts';
import { apiKeyDisplayPrefix, generateApiKey } from './key-format.ts';
import { apiKeyHash } from './key-hash.ts';

/** A day: long enough for a nightly job to pick up the new key, short enough that a leaked old key dies soon. */
export const API_KEY_MAX_OVERLAP_SECONDS = 86_400;

export interface RollApiKeyInput {
  organizationId: string;
  apiKeyId: string;
  adminUserId: string;
  overlapSeconds: number;
  correlationId: string;
}

export type RollApiKeyOutcome =
  | { ok: true; apiKey: ApiKey; key: string }
  /** No such key here, revoked, or expired. */
  | { ok: false; reason: 'not-found' }
  /** Rolled before: its successor is the one to roll. */
  | { ok: false; reason: 'already-rolled' };

/**
 * One statement, under the old row's lock (two rolls of one key run one after the other, and the second finds it
 * rolled): the successor with the old key's name, scopes, limit and expiry; the old key's expiry brought forward to
 * the overlap's end (never pushed back) and its version raised; the organisation's api_key_seq raised; `api_key.rolled`
 * naming the new key, the old one in its details. Then the old key's cached entry is deleted.
 */
export async function rollApiKey(deps: Deps, input: RollApiKeyInput): Promise<RollApiKeyOutcome> {
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);
  const key = generateApiKey();
  const newId = uuidv7();
  const audit = conditionalAuditInsert(
    {
      action: 'api_key.rolled',
      actorUserId: input.adminUserId,
      organizationId: input.organizationId,
      locationId: null,
      targetId: newId,
      correlationId: input.correlationId,
      details: { rolledFrom: input.apiKeyId, overlapSeconds: input.overlapSeconds },
    },
    now,
    'EXISTS (SELECT 1 FROM successor)',
    9,
  );
  const keyHash = await apiKeyHash(deps.config.indexHashKey, key);
  const rows = await dbCall('commit', 'apiKeys.roll', (signal) =>
    deps.db.query<ApiKeyRow & { outcome: 'rolled' | 'already-rolled'; old_key_hash: string }>(
      `WITH old AS (
         SELECT * FROM api_keys
          WHERE id = $1::uuid AND organization_id = $2::uuid AND revoked_at IS NULL
            AND (expires_at IS NULL OR expires_at > $5::timestamptz)
          FOR NO KEY UPDATE),
       successor AS (
         INSERT INTO api_keys (id, organization_id, name, prefix, key_hash, scopes, created_by, created_at, expires_at, rate_limit_per_minute)
         SELECT $3::uuid, old.organization_id, old.name, $4, $6, old.scopes, $7::uuid, $5::timestamptz, old.expires_at, old.rate_limit_per_minute
           FROM old WHERE old.rolled_to IS NULL
         RETURNING *),
       ended AS (
         UPDATE api_keys k
            SET expires_at = LEAST(k.expires_at, $5::timestamptz + make_interval(secs => $8::integer)), rolled_to = s.id, version = k.version + 1
           FROM successor s WHERE k.id = $1::uuid
         RETURNING k.id),
       bumped AS (UPDATE organizations SET api_key_seq = api_key_seq + 1 WHERE id = $2::uuid AND EXISTS (SELECT 1 FROM successor)),
       audit AS (${audit.text})
       SELECT 'rolled' AS outcome, (SELECT key_hash FROM old) AS old_key_hash, ${API_KEY_COLUMNS} FROM successor k
       UNION ALL
       SELECT 'already-rolled' AS outcome, k.key_hash AS old_key_hash, ${API_KEY_COLUMNS} FROM old k WHERE k.rolled_to IS NOT NULL`,
      [
        input.apiKeyId,
        input.organizationId,
        newId,
        apiKeyDisplayPrefix(key),
        now.toISOString(),
        keyHash,
        input.adminUserId,
        input.overlapSeconds,
        ...audit.params,
      ],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  if (row.outcome === 'already-rolled') return { ok: false, reason: 'already-rolled' };
  // The old key's entry carries its old expiry: deleted, the overlap's end holds from its next request.
  await forgetCachedApiKey(deps, input.organizationId, row.old_key_hash, input.correlationId);
  return { ok: true, apiKey: apiKeyFromRow(row), key };
}

// apiKeys.create: an organisation admin makes a key; the key is answered once and only its keyed hash is stored.
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../deps.ts';
import { conditionalAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { API_KEY_COLUMNS, apiKeyFromRow, type ApiKey, type ApiKeyRow } from './api-key.ts';
import { apiKeyDisplayPrefix, generateApiKey } from './key-format.ts';
import { apiKeyHash } from './key-hash.ts';
import type { ApiKeyScope } from './scopes.ts';

export interface CreateApiKeyInput {
  organizationId: string;
  /** The admin, already authorised for the organisation (authorizeOrgAdmin). */
  adminUserId: string;
  name: string;
  scopes: ApiKeyScope[];
  /** Epoch ms; undefined: the key does not expire. */
  expiresAtMs: number | undefined;
  rateLimitPerMinute: number | undefined;
  correlationId: string;
}

export type CreateApiKeyOutcome =
  | { ok: true; apiKey: ApiKey; key: string }
  /** The organisation was deleted after the role check. */
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'expiry-past' };

/** One statement: the row, only while the organisation is not deleted, and its `api_key.created` audit row. */
export async function createApiKey(deps: Deps, input: CreateApiKeyInput): Promise<CreateApiKeyOutcome> {
  const nowMs = deps.clock.now();
  if (input.expiresAtMs !== undefined && input.expiresAtMs <= nowMs) return { ok: false, reason: 'expiry-past' };
  const key = generateApiKey();
  const apiKeyId = uuidv7();
  const now = new Date(nowMs);
  const audit = conditionalAuditInsert(
    {
      action: 'api_key.created',
      actorUserId: input.adminUserId,
      organizationId: input.organizationId,
      locationId: null,
      targetId: apiKeyId,
      correlationId: input.correlationId,
      details: { scopes: input.scopes.join(','), expires: input.expiresAtMs !== undefined },
    },
    now,
    'EXISTS (SELECT 1 FROM k)',
    11,
  );
  const keyHash = await apiKeyHash(deps.config.indexHashKey, key);
  const rows = await dbCall('commit', 'apiKeys.create', (signal) =>
    deps.db.query<ApiKeyRow>(
      `WITH k AS (
         INSERT INTO api_keys (id, organization_id, name, prefix, key_hash, scopes, created_by, created_at, expires_at, rate_limit_per_minute)
         SELECT $1::uuid, o.id, $3, $4, $5, $6::text[], $7::uuid, $8::timestamptz, $9::timestamptz, $10::integer
           FROM organizations o WHERE o.id = $2::uuid AND o.state <> 'deleted'
         RETURNING *),
       audit AS (${audit.text})
       SELECT ${API_KEY_COLUMNS} FROM k`,
      [
        apiKeyId,
        input.organizationId,
        input.name,
        apiKeyDisplayPrefix(key),
        keyHash,
        input.scopes,
        input.adminUserId,
        now.toISOString(),
        input.expiresAtMs === undefined ? null : new Date(input.expiresAtMs).toISOString(),
        input.rateLimitPerMinute ?? null,
        ...audit.params,
      ],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  return { ok: true, apiKey: apiKeyFromRow(row), key };
}

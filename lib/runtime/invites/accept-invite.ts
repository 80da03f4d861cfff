// invites.accept: one script checks the token hash and recipient and removes the invite atomically; PostgreSQL then grants the role.
import { uuidv7 } from 'uuidv7';
import { hashEmail, normalizeEmail, toUuidN } from '../../keys/index.ts';
import { sha256Hex } from '../../crypto/index.ts';
import { decodeJson, runScript, type LuaScript } from '../../redis/index.ts';
import { auditStatement } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { RoleCode } from '../../auth/org-access.ts';
import { LUA_EMAIL_INDEX_KEY } from './lua.ts';
import { inviteRecordSchema } from './invite-record.ts';
import { readInviteToken } from './invite-token.ts';
import { restoreInvite } from './restore-invite.ts';

/**
 * KEYS[1] invite object, KEYS[2] active-by-org index
 * ARGV[1] SHA-256 of the presented token, ARGV[2] keyed hash of the caller's verified email,
 * ARGV[3] email-index key prefix of the same organisation, ARGV[4] member
 * Returns {0} unknown / expired / used / wrong token, {2} right token but another recipient (nothing consumed),
 * {1, json} accepted: object and both index entries removed in the same step, so only one caller can win.
 */
export const ACCEPT_INVITE: LuaScript = {
  name: 'invites.accept',
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local token_hash = ARGV[1]
local email_hash = ARGV[2]
local email_index_prefix = ARGV[3]
local member = ARGV[4]
${LUA_EMAIL_INDEX_KEY}
local function same(a, b)
  if type(a) ~= 'string' or #a ~= #b then return false end
  local diff = 0
  for i = 1, #a do diff = bit.bor(diff, bit.bxor(string.byte(a, i), string.byte(b, i))) end
  return diff == 0
end
local value = redis.call('GET', object_key)
if not value then return {0} end
local ok, obj = pcall(cjson.decode, value)
if not ok or type(obj) ~= 'table' or not same(obj['tokenHash'], token_hash) then return {0} end
if not same(obj['emailHash'], email_hash) then return {2} end
redis.call('DEL', object_key)
redis.call('ZREM', org_index_key, member)
local email_key = email_index_key(email_index_prefix, value)
if email_key then redis.call('ZREM', email_key, member) end
return {1, value}
`,
};

export type AcceptOutcome =
  | { ok: true; organizationId: string; locationId: string | null; roleCode: RoleCode }
  | { ok: false; reason: 'invalid' | 'wrong-recipient' | 'email-belongs-to-another-user' };

export async function acceptInvite(
  deps: Deps,
  input: { token: string; userId: string; verifiedEmail: string; correlationId: string },
): Promise<AcceptOutcome> {
  const target = readInviteToken(input.token);
  if (target === undefined) return { ok: false, reason: 'invalid' };
  const { keys } = deps;
  let objectKey: string;
  try {
    objectKey = keys.inviteObject(target.organizationId, target.inviteId);
  } catch {
    // Bytes that do not form valid UUIDs: the same answer as an unknown token.
    return { ok: false, reason: 'invalid' };
  }
  const email = normalizeEmail(input.verifiedEmail);
  const reply = await runScript(
    deps.redis.atMostOnce,
    ACCEPT_INVITE,
    [objectKey, keys.inviteActiveByOrg(target.organizationId)],
    [
      await sha256Hex(input.token),
      await hashEmail(deps.config.indexHashKey, email),
      keys.inviteActiveByEmailHashPrefix(target.organizationId),
      toUuidN(target.inviteId),
    ],
  );
  const [status, raw] = Array.isArray(reply) ? reply : [];
  if (status === 2) return { ok: false, reason: 'wrong-recipient' };
  const record = status === 1 ? decodeJson(inviteRecordSchema, raw) : undefined;
  if (record === undefined || typeof raw !== 'string' || record.organizationId !== target.organizationId) {
    return { ok: false, reason: 'invalid' };
  }
  const now = new Date(deps.clock.now());
  try {
    // One non-interactive transaction, one round trip; the unique constraint makes a repeated grant a no-op.
    // Built before the call: an invalid audit event is a bug, not an unavailable database.
    const statements = [
      {
        // A known id is a no-op; the same email under another id is an identity conflict and fails (23505).
        text: 'INSERT INTO users (id, email) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
        params: [input.userId, email],
      },
      {
        text: `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code, granted_by_user_id)
               VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
        params: [uuidv7(), input.userId, record.organizationId, record.locationId, record.roleCode, record.createdByUserId],
      },
      auditStatement(
        {
          action: 'invite.accepted',
          actorUserId: input.userId,
          organizationId: record.organizationId,
          locationId: record.locationId,
          targetId: record.inviteId,
          correlationId: input.correlationId,
          details: { roleCode: record.roleCode },
        },
        now,
      ),
    ];
    await dbCall('commit', 'invites.accept.grant', (signal) => deps.db.transaction(statements, { signal }));
  } catch (error) {
    // The role was not granted: give the invite back so the user (or the right account) can try again.
    await restoreInvite(deps, raw, record, input.correlationId);
    if (sqlState(error) === '23505') return { ok: false, reason: 'email-belongs-to-another-user' };
    throw error;
  }
  return { ok: true, organizationId: record.organizationId, locationId: record.locationId, roleCode: record.roleCode };
}

// invites.create: one script writes the object (EX = invite TTL) and both index entries; the audit row follows, or the script is undone.
import { uuidv7 } from 'uuidv7';
import { hashEmail, normalizeEmail, toUuidN } from '../../keys/index.ts';
import { sha256Hex } from '../../crypto/index.ts';
import { encodeJson, runScript, type LuaScript } from '../../redis/index.ts';
import { auditStatement } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { RoleCode } from '../../auth/org-access.ts';
import { LUA_KEEP_INDEX_ALIVE } from './lua.ts';
import { inviteRecordSchema, toInvite, type Invite, type InviteRecord } from './invite-record.ts';
import { issueInviteToken } from './invite-token.ts';
import { removeInvite } from './remove-invite.ts';

/**
 * KEYS[1] invite object, KEYS[2] active-by-org index, KEYS[3] active-by-email-hash index
 * ARGV[1] invite JSON, ARGV[2] TTL seconds, ARGV[3] member (UUID N form), ARGV[4] score (expiry, unix seconds)
 * Safe to run twice: the same id, value and scores land again.
 */
export const CREATE_INVITE: LuaScript = {
  name: 'invites.create',
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local email_index_key = KEYS[3]
local invite_json = ARGV[1]
local ttl = tonumber(ARGV[2])
local member = ARGV[3]
local expires_at = ARGV[4]
${LUA_KEEP_INDEX_ALIVE}
redis.call('SET', object_key, invite_json, 'EX', ttl)
redis.call('ZADD', org_index_key, expires_at, member)
redis.call('ZADD', email_index_key, expires_at, member)
keep_index_alive(org_index_key, ttl)
keep_index_alive(email_index_key, ttl)
return 1
`,
};

export interface CreateInviteInput {
  organizationId: string;
  locationId: string | null;
  email: string;
  roleCode: RoleCode;
  createdByUserId: string;
  correlationId: string;
}

export async function createInvite(deps: Deps, input: CreateInviteInput): Promise<{ invite: Invite; token: string }> {
  const { keys, config, clock } = deps;
  const inviteId = uuidv7();
  const token = issueInviteToken(input.organizationId, inviteId);
  const normalizedEmail = normalizeEmail(input.email);
  const emailHash = await hashEmail(config.indexHashKey, normalizedEmail);
  const createdAtMs = clock.now();
  const expiresAtMs = createdAtMs + config.inviteTtlSeconds * 1000;
  const record: InviteRecord = {
    inviteId,
    storageOrganizationId: input.organizationId,
    organizationId: input.organizationId,
    locationId: input.locationId,
    normalizedEmail,
    emailHash,
    tokenHash: await sha256Hex(token),
    roleCode: input.roleCode,
    createdByUserId: input.createdByUserId,
    createdAtUtc: new Date(createdAtMs).toISOString(),
    expiresAtUtc: new Date(expiresAtMs).toISOString(),
    correlationId: input.correlationId,
    isActive: true,
    expiresAtUnixSeconds: Math.floor(expiresAtMs / 1000),
  };
  const member = toUuidN(inviteId);
  const objectKey = keys.inviteObject(input.organizationId, inviteId);
  const orgIndexKey = keys.inviteActiveByOrg(input.organizationId);
  const emailIndexKey = keys.inviteActiveByEmailHash(input.organizationId, emailHash);
  // Built before anything is written: an invalid audit event is a bug and must not leave a Redis object behind.
  const statements = [
    auditStatement(
      {
        action: 'invite.created',
        actorUserId: input.createdByUserId,
        organizationId: input.organizationId,
        locationId: input.locationId,
        targetId: inviteId,
        correlationId: input.correlationId,
        details: { roleCode: input.roleCode, expiresAtUtc: record.expiresAtUtc },
      },
      new Date(createdAtMs),
    ),
  ];
  const target = { objectKey, orgIndexKey, emailIndexKey, member, correlationId: input.correlationId };
  try {
    await runScript(
      deps.redis.atMostOnce,
      CREATE_INVITE,
      [objectKey, orgIndexKey, emailIndexKey],
      [encodeJson(inviteRecordSchema, record), String(config.inviteTtlSeconds), member, String(record.expiresAtUnixSeconds)],
    );
  } catch (error) {
    // A missed deadline leaves the outcome unknown: the script may still land. The id is fresh, so taking it
    // back cannot touch anything else, and it usually runs after the late create on the same connection path.
    await removeInvite(deps, target);
    throw error;
  }
  try {
    await dbCall('commit', 'audit.invite.created', (signal) => deps.db.transaction(statements, { signal }));
  } catch (error) {
    // No runtime object without its audit event: take the invite back before failing.
    await removeInvite(deps, target);
    throw error;
  }
  return { invite: toInvite(record), token };
}

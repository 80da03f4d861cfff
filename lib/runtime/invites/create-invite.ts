// invites.create: one script counts the org's throttle hit, checks the active cap and writes the object, both index entries and the email index's registry entry; the audit row follows, or the script is undone.
import { uuidv7 } from 'uuidv7';
import { hashEmail, normalizeEmail, toUuidN } from '../../keys/index.ts';
import { sha256Hex } from '../../crypto/index.ts';
import { defineScript, encodeJson, runScript } from '../../redis/index.ts';
import { auditActor, auditStatement } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { RoleCode } from '../../keys/index.ts';
import { LUA_THROTTLE_HIT, retryAfter, throttleWindow } from '../throttle/index.ts';
import { LUA_KEEP_INDEX_ALIVE, LUA_REGISTER_EMAIL_INDEX } from './lua.ts';
import { inviteRecordSchema, toInvite, type Invite, type InviteRecord } from './invite-record.ts';
import { issueInviteToken } from './invite-token.ts';
import { removeInvite } from './remove-invite.ts';

/**
 * KEYS[1] invite object, KEYS[2] active-by-org index, KEYS[3] active-by-email-hash index,
 * KEYS[4] the organisation's invite-create throttle counter (same hash tag: the hit rides in this round trip),
 * KEYS[5] the organisation's registry of email indexes (same hash tag: the cleanup cron's list of them, no SCAN)
 * ARGV[1] invite JSON, ARGV[2] TTL seconds, ARGV[3] member (UUID N form), ARGV[4] score (expiry, unix seconds),
 * ARGV[5] throttle limit, ARGV[6] seconds left in the throttle window, ARGV[7] most active invites, ARGV[8] now (unix seconds),
 * ARGV[9] the email hash (KEYS[3]'s last segment, the registry member)
 * Returns {1} created; {0, seconds left} over the throttle; {2} at the active-invite cap. Every attempt counts
 * (a script hammering at the cap is throttled too); a refused one writes nothing else. Live members are those
 * scored after now, counted in O(log N). Safe to run twice: the same id, value and scores land again, and the cap
 * lets a member that is already in pass.
 */
export const CREATE_INVITE = defineScript({
  name: 'invites.create',
  keys: ['object', 'orgIndex', 'emailIndex', 'throttle', 'emailRegistry'],
  args: ['inviteJson', 'ttl', 'member', 'expiresAt', 'throttleLimit', 'throttleWindowTtl', 'maxActive', 'now', 'emailHash'],
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local email_index_key = KEYS[3]
local throttle_key = KEYS[4]
local email_registry_key = KEYS[5]
local invite_json = ARGV[1]
local ttl = tonumber(ARGV[2])
local member = ARGV[3]
local expires_at = ARGV[4]
local throttle_limit = tonumber(ARGV[5])
local throttle_window_ttl = tonumber(ARGV[6])
local max_active = tonumber(ARGV[7])
local now = ARGV[8]
local email_hash = ARGV[9]
${LUA_KEEP_INDEX_ALIVE}
${LUA_REGISTER_EMAIL_INDEX}
${LUA_THROTTLE_HIT}
local hits, window_left = hit_throttle(throttle_key, throttle_window_ttl)
if hits > throttle_limit then return {0, window_left} end
if not redis.call('ZSCORE', org_index_key, member) and redis.call('ZCOUNT', org_index_key, '(' .. now, '+inf') >= max_active then
  return {2}
end
redis.call('SET', object_key, invite_json, 'EX', ttl)
redis.call('ZADD', org_index_key, expires_at, member)
redis.call('ZADD', email_index_key, expires_at, member)
keep_index_alive(org_index_key, ttl)
keep_index_alive(email_index_key, ttl)
register_email_index(email_registry_key, email_hash, expires_at, ttl)
return {1}
`,
});

export interface CreateInviteInput {
  organizationId: string;
  locationId: string | null;
  email: string;
  roleCode: RoleCode;
  createdByUserId: string;
  /** The organisation's API key that made this request, when one did: the audit row's actor in place of the person. */
  actorApiKeyId?: string | undefined;
  correlationId: string;
  /** How the token reaches the invitee: 'email' (the caller sends it, lib/runtime/invites/deliver-invite.ts) or 'none'. */
  delivery?: 'email' | 'none';
}

export type CreateOutcome =
  | { ok: true; invite: Invite; token: string; record: InviteRecord }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number }
  | { ok: false; reason: 'limit-reached'; maxActive: number };

export async function createInvite(deps: Deps, input: CreateInviteInput): Promise<CreateOutcome> {
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
    delivery: input.delivery ?? 'none',
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
        ...auditActor(input.createdByUserId, input.actorApiKeyId),
        organizationId: input.organizationId,
        locationId: input.locationId,
        targetId: inviteId,
        correlationId: input.correlationId,
        details: { roleCode: input.roleCode, expiresAtUtc: record.expiresAtUtc },
      },
      new Date(createdAtMs),
    ),
  ];
  const emailRegistryKey = keys.inviteEmailIndexesByOrg(input.organizationId);
  const target = { objectKey, orgIndexKey, emailIndexKey, emailRegistryKey, emailHash, member, correlationId: input.correlationId };
  const counter = await throttleWindow(deps, {
    action: 'invite-create',
    scope: { kind: 'org', id: input.organizationId },
    subject: input.organizationId,
  });
  let reply: unknown;
  try {
    reply = await runScript(deps.redis.atMostOnce, CREATE_INVITE, {
      keys: { object: objectKey, orgIndex: orgIndexKey, emailIndex: emailIndexKey, throttle: counter.key, emailRegistry: emailRegistryKey },
      args: {
        inviteJson: encodeJson(inviteRecordSchema, record),
        ttl: config.inviteTtlSeconds,
        member,
        expiresAt: record.expiresAtUnixSeconds,
        throttleLimit: counter.limit,
        throttleWindowTtl: counter.ttlSeconds,
        maxActive: config.inviteMaxActivePerOrg,
        now: Math.floor(createdAtMs / 1000),
        emailHash,
      },
    });
  } catch (error) {
    // A missed deadline leaves the outcome unknown: the script may still land. The id is fresh, so taking it
    // back cannot touch anything else, and it usually runs after the late create on the same connection path.
    await removeInvite(deps, target);
    throw error;
  }
  const [status, windowLeft] = Array.isArray(reply) ? reply : [];
  if (status === 0) return { ok: false, reason: 'rate-limited', retryAfterSeconds: retryAfter(windowLeft, counter.ttlSeconds) };
  if (status === 2) return { ok: false, reason: 'limit-reached', maxActive: config.inviteMaxActivePerOrg };
  if (status !== 1) {
    await removeInvite(deps, target);
    throw new Error('invites.create: unexpected script reply');
  }
  try {
    await dbCall('commit', 'audit.invite.created', (signal) => deps.db.transaction(statements, { signal }));
  } catch (error) {
    // No runtime object without its audit event: take the invite back before failing.
    await removeInvite(deps, target);
    throw error;
  }
  return { ok: true, invite: toInvite(record), token, record };
}

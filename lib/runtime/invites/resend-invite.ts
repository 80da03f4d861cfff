// invites.resend: one script swaps the token hash of a live invite and restarts its expiry (object, both index entries
// and the email-index registry), counted per invite and in the organisation's invite-create throttle; the audit row
// follows. The old token is refused from that step on: accept compares the stored hash (lib/runtime/invites/accept-invite.ts).
import { sha256Hex } from '../../crypto/index.ts';
import { parseHashedSegment, toUuidN } from '../../keys/index.ts';
import { auditActor, auditStatement } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { decodeJson, defineScript, encodeJson, redisCall, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_THROTTLE_HIT, retryAfter, throttleWindow } from '../throttle/index.ts';
import { LUA_KEEP_INDEX_ALIVE, LUA_REGISTER_EMAIL_INDEX } from './lua.ts';
import { inviteRecordSchema, toInvite, type Invite, type InviteRecord } from './invite-record.ts';
import { issueInviteToken } from './invite-token.ts';

/**
 * KEYS[1] invite object, KEYS[2] active-by-org index, KEYS[3] active-by-email-hash index, KEYS[4] the organisation's
 * invite-create throttle counter, KEYS[5] this invite's invite-resend throttle counter, KEYS[6] the organisation's
 * registry of email indexes (all under the organisation's hash tag).
 * ARGV[1] the object as the caller read it, ARGV[2] the new object, ARGV[3] TTL seconds, ARGV[4] member (UUID N form),
 * ARGV[5] new expiry (unix seconds), ARGV[6] create limit, ARGV[7] create window left, ARGV[8] resend limit,
 * ARGV[9] resend window left, ARGV[10] the email hash (the registry member)
 * Returns {1} swapped; {0} no live invite (expired, accepted, cancelled, never); {3} the object changed since it was
 * read (another resend): nothing written, read again; {4, seconds} over the invite's resend limit; {5, seconds} over
 * the organisation's create limit. Every attempt counts in both, first.
 */
export const RESEND_INVITE = defineScript({
  name: 'invites.resend',
  keys: ['object', 'orgIndex', 'emailIndex', 'createThrottle', 'resendThrottle', 'emailRegistry'],
  args: [
    'expectedJson',
    'inviteJson',
    'ttl',
    'member',
    'expiresAt',
    'createLimit',
    'createWindowTtl',
    'resendLimit',
    'resendWindowTtl',
    'emailHash',
  ],
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local email_index_key = KEYS[3]
local create_throttle_key = KEYS[4]
local resend_throttle_key = KEYS[5]
local email_registry_key = KEYS[6]
local expected_json = ARGV[1]
local invite_json = ARGV[2]
local ttl = tonumber(ARGV[3])
local member = ARGV[4]
local expires_at = ARGV[5]
local create_limit = tonumber(ARGV[6])
local create_window_ttl = tonumber(ARGV[7])
local resend_limit = tonumber(ARGV[8])
local resend_window_ttl = tonumber(ARGV[9])
local email_hash = ARGV[10]
${LUA_KEEP_INDEX_ALIVE}
${LUA_REGISTER_EMAIL_INDEX}
${LUA_THROTTLE_HIT}
local resends, resend_left = hit_throttle(resend_throttle_key, resend_window_ttl)
local creates, create_left = hit_throttle(create_throttle_key, create_window_ttl)
if resends > resend_limit then return {4, resend_left} end
if creates > create_limit then return {5, create_left} end
local value = redis.call('GET', object_key)
if not value then return {0} end
if value ~= expected_json then return {3} end
redis.call('SET', object_key, invite_json, 'EX', ttl)
redis.call('ZADD', org_index_key, expires_at, member)
redis.call('ZADD', email_index_key, expires_at, member)
keep_index_alive(org_index_key, ttl)
keep_index_alive(email_index_key, ttl)
register_email_index(email_registry_key, email_hash, expires_at, ttl)
return {1}
`,
});

export interface ResendInviteInput {
  organizationId: string;
  inviteId: string;
  actorUserId: string;
  /** The organisation's API key that made this request, when one did: the audit row's actor in place of the person. */
  actorApiKeyId?: string | undefined;
  correlationId: string;
}

export type ResendOutcome =
  | { ok: true; invite: Invite; token: string; record: InviteRecord }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

const ATTEMPTS = 3;

export async function resendInvite(deps: Deps, input: ResendInviteInput): Promise<ResendOutcome> {
  const { keys, config, clock } = deps;
  const objectKey = keys.inviteObject(input.organizationId, input.inviteId);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const raw = await redisCall('invites.resend.read', () => deps.redis.retrySafe.get(objectKey));
    if (typeof raw !== 'string') return { ok: false, reason: 'not-found' };
    const current = decodeJson(inviteRecordSchema, raw);
    if (current === undefined || current.organizationId !== input.organizationId) return { ok: false, reason: 'not-found' };
    const token = issueInviteToken(input.organizationId, input.inviteId);
    const nowMs = clock.now();
    const expiresAtMs = nowMs + config.inviteTtlSeconds * 1000;
    // Resending delivers by email, whatever the invite was created with (docs/design/invites.md#resend).
    const record: InviteRecord = {
      ...current,
      tokenHash: await sha256Hex(token),
      expiresAtUtc: new Date(expiresAtMs).toISOString(),
      expiresAtUnixSeconds: Math.floor(expiresAtMs / 1000),
      delivery: 'email',
    };
    const statements = [
      auditStatement(
        {
          action: 'invite.resent',
          ...auditActor(input.actorUserId, input.actorApiKeyId),
          organizationId: input.organizationId,
          locationId: current.locationId,
          targetId: input.inviteId,
          correlationId: input.correlationId,
          details: { roleCode: current.roleCode, expiresAtUtc: record.expiresAtUtc },
        },
        new Date(nowMs),
      ),
    ];
    const [createCounter, resendCounter] = await Promise.all([
      throttleWindow(deps, { action: 'invite-create', scope: { kind: 'org', id: input.organizationId }, subject: input.organizationId }),
      throttleWindow(deps, { action: 'invite-resend', scope: { kind: 'org', id: input.organizationId }, subject: input.inviteId }),
    ]);
    const reply = await runScript(deps.redis.atMostOnce, RESEND_INVITE, {
      keys: {
        object: objectKey,
        orgIndex: keys.inviteActiveByOrg(input.organizationId),
        emailIndex: keys.inviteActiveByEmailHash(input.organizationId, parseHashedSegment(current.emailHash, 'emailHash')),
        createThrottle: createCounter.key,
        resendThrottle: resendCounter.key,
        emailRegistry: keys.inviteEmailIndexesByOrg(input.organizationId),
      },
      args: {
        expectedJson: raw,
        inviteJson: encodeJson(inviteRecordSchema, record),
        ttl: config.inviteTtlSeconds,
        member: toUuidN(input.inviteId),
        expiresAt: record.expiresAtUnixSeconds,
        createLimit: createCounter.limit,
        createWindowTtl: createCounter.ttlSeconds,
        resendLimit: resendCounter.limit,
        resendWindowTtl: resendCounter.ttlSeconds,
        emailHash: current.emailHash,
      },
    });
    const [status, windowLeft] = Array.isArray(reply) ? reply : [];
    if (status === 0) return { ok: false, reason: 'not-found' };
    if (status === 3) continue;
    if (status === 4) return { ok: false, reason: 'rate-limited', retryAfterSeconds: retryAfter(windowLeft, resendCounter.ttlSeconds) };
    if (status === 5) return { ok: false, reason: 'rate-limited', retryAfterSeconds: retryAfter(windowLeft, createCounter.ttlSeconds) };
    if (status !== 1) throw new Error('invites.resend: unexpected script reply');
    // The swap stands even if this fails (the old token is refused either way): the caller answers 503 and sends
    // nothing, and a repeat issues another token (docs/design/failure-semantics.md).
    await dbCall('commit', 'audit.invite.resent', (signal) => deps.db.transaction(statements, { signal }));
    return { ok: true, invite: toInvite(record), token, record };
  }
  // Three resends raced this one; it gives way rather than loop.
  return { ok: false, reason: 'not-found' };
}

// invites.accept: one script checks the token and recipient and consumes the invite, leaving a receipt; PostgreSQL then
// records the outcome with the grant. A repeat by the winner finishes or re-answers; nothing is granted twice.
import { uuidv7 } from 'uuidv7';
import { INVITE_RECEIPT_TTL_SECONDS } from '../../keys/index.ts';
import { hashEmail, normalizeEmail, toUuidN } from '../../keys/index.ts';
import { sha256Hex } from '../../crypto/index.ts';
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import type { RoleCode } from '../../keys/index.ts';
import { LUA_THROTTLE_HIT, retryAfter, throttleWindow } from '../throttle/index.ts';
import { LUA_EMAIL_INDEX_KEY, LUA_SAME } from './lua.ts';
import type { InviteRecord } from './invite-record.ts';
import { readInviteToken } from './invite-token.ts';
import { recordAcceptance } from './outcome.ts';
import { LUA_KEEP_RECEIPT, LUA_NEW_RECEIPT, LUA_RECEIPT_FOR_TOKEN, type InviteReceipt } from './receipt.ts';
import { readConsumed } from './read-consumed.ts';
import { returnInvite } from './return-invite.ts';
import { cancelVoidInvite } from './cancel-void-invite.ts';

/**
 * KEYS[5] is this account's invite-accept throttle counter in the token's organisation (same hash tag). Every
 * attempt counts first, failed ones too: over the limit, {5, seconds left in the window} and nothing else happens.
 * Returns {0} unknown / expired / wrong token / consumed by someone else, {2} right token but another recipient
 * (nothing consumed), {1, receipt} consumed now: object and both index entries removed and the receipt written in the
 * same step, so only one caller can win; {3, receipt} consumed earlier by this same account with this token (a repeat
 * after a lost reply, or a parallel accept), nothing changed.
 */
export const ACCEPT_INVITE = defineScript({
  name: 'invites.accept',
  keys: ['object', 'orgIndex', 'receipt', 'receiptsIndex', 'throttle'],
  args: [
    'tokenHash',
    'emailHash',
    'emailIndexPrefix',
    'member',
    'userId',
    'attempt',
    'correlationId',
    'nowMs',
    'receiptTtl',
    'throttleLimit',
    'throttleWindowTtl',
  ],
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local receipt_key = KEYS[3]
local receipts_index_key = KEYS[4]
local token_hash = ARGV[1]
local email_hash = ARGV[2]
local email_index_prefix = ARGV[3]
local member = ARGV[4]
local user_id = ARGV[5]
local attempt = ARGV[6]
local correlation_id = ARGV[7]
local now_ms = ARGV[8]
local receipt_ttl = tonumber(ARGV[9])
local throttle_key = KEYS[5]
local throttle_limit = tonumber(ARGV[10])
local throttle_window_ttl = tonumber(ARGV[11])
${LUA_THROTTLE_HIT}
${LUA_EMAIL_INDEX_KEY}
${LUA_SAME}
${LUA_NEW_RECEIPT}
${LUA_KEEP_RECEIPT}
${LUA_RECEIPT_FOR_TOKEN}
local hits, window_left = hit_throttle(throttle_key, throttle_window_ttl)
if hits > throttle_limit then return {5, window_left} end
local value = redis.call('GET', object_key)
if not value then
  local raw_receipt, receipt = receipt_for_token(receipt_key, 'accept', token_hash)
  if not raw_receipt or receipt['actorUserId'] ~= user_id then return {0} end
  return {3, raw_receipt}
end
local ok, obj = pcall(cjson.decode, value)
if not ok or type(obj) ~= 'table' or not same(obj['tokenHash'], token_hash) then return {0} end
if not same(obj['emailHash'], email_hash) then return {2} end
redis.call('DEL', object_key)
redis.call('ZREM', org_index_key, member)
local email_key = email_index_key(email_index_prefix, value)
if email_key then redis.call('ZREM', email_key, member) end
local receipt = new_receipt('accept', user_id, attempt, correlation_id, now_ms, value)
keep_receipt(receipt_key, receipts_index_key, member, receipt, now_ms, receipt_ttl)
return {1, receipt}
`,
});

export type AcceptOutcome =
  | { ok: true; organizationId: string; locationId: string | null; roleCode: RoleCode }
  | { ok: false; reason: 'invalid' | 'wrong-recipient' | 'email-belongs-to-another-user' }
  | { ok: false; reason: 'role-conflict'; heldRole: RoleCode }
  | { ok: false; reason: 'tenant-suspended' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

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
  // Counted per account within the token's organisation: the tenant is in the key (one tenant's traffic never
  // locks an account out of another), and the hit rides in the accept's own round trip.
  const counter = await throttleWindow(deps, {
    action: 'invite-accept',
    scope: { kind: 'org', id: target.organizationId },
    subject: input.userId,
  });
  const reply = await runScript(deps.redis.atMostOnce, ACCEPT_INVITE, {
    keys: {
      object: objectKey,
      orgIndex: keys.inviteActiveByOrg(target.organizationId),
      receipt: keys.inviteReceipt(target.organizationId, target.inviteId),
      receiptsIndex: keys.inviteReceiptsByOrg(target.organizationId),
      throttle: counter.key,
    },
    args: {
      tokenHash: await sha256Hex(input.token),
      emailHash: await hashEmail(deps.config.indexHashKey, normalizeEmail(input.verifiedEmail)),
      emailIndexPrefix: keys.inviteActiveByEmailHashPrefix(target.organizationId),
      member: toUuidN(target.inviteId),
      userId: input.userId,
      attempt: uuidv7(),
      correlationId: input.correlationId,
      nowMs: deps.clock.now(),
      receiptTtl: INVITE_RECEIPT_TTL_SECONDS,
      throttleLimit: counter.limit,
      throttleWindowTtl: counter.ttlSeconds,
    },
  });
  const [status, rawReceipt] = Array.isArray(reply) ? reply : [];
  if (status === 5) return { ok: false, reason: 'rate-limited', retryAfterSeconds: retryAfter(rawReceipt, counter.ttlSeconds) };
  if (status === 2) return { ok: false, reason: 'wrong-recipient' };
  if (status !== 1 && status !== 3) return { ok: false, reason: 'invalid' };
  const { receipt, record } = await readConsumed(deps, {
    raw: rawReceipt,
    consumedNow: status === 1,
    ...target,
    correlationId: input.correlationId,
  });
  return finishAcceptance(deps, receipt, record);
}

/**
 * Records the acceptance the receipt stands for: used by the accept itself, by its repeat, and by the reconciler.
 * A PostgreSQL that cannot answer leaves the receipt in place (the outcome is unknown), so a repeat or the
 * reconciler finishes it later. A grant refused for this invitee (a role conflict, the email of another account) or
 * for now (a suspended organisation) gives the invite back; one that can never be granted (its creator no longer an
 * admin there, its organisation deleted) cancels it (cancel-void-invite.ts) and answers as a cancelled invite does.
 */
export async function finishAcceptance(deps: Deps, receipt: InviteReceipt, record: InviteRecord): Promise<AcceptOutcome> {
  const recorded = await recordAcceptance(deps, { record, actorUserId: receipt.actorUserId, correlationId: receipt.correlationId });
  const accepted = { ok: true, organizationId: record.organizationId, locationId: record.locationId, roleCode: record.roleCode } as const;
  if (recorded.ok) return accepted;
  if (recorded.reason === 'finished') {
    // Finished by this same account (its own earlier attempt, a parallel one, or the reconciler): the same answer.
    const mine = recorded.finished.outcome === 'accepted' && recorded.finished.actorUserId === receipt.actorUserId;
    return mine ? accepted : { ok: false, reason: 'invalid' };
  }
  if (recorded.reason === 'void') {
    await cancelVoidInvite(deps, receipt, record, recorded.cause);
    return { ok: false, reason: 'invalid' };
  }
  await returnInvite(deps, {
    organizationId: record.organizationId,
    inviteId: record.inviteId,
    attempt: receipt.attempt,
    correlationId: receipt.correlationId,
  });
  return recorded;
}

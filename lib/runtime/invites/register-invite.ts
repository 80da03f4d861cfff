// invites.register: an emailed invitation creates its invitee's account. A read finds the invite (or the receipt an
// earlier attempt left), one script consumes it with a 'register' receipt naming the account's id, and PostgreSQL
// creates the account and grants the role in one transaction. Signing in is lib/auth/register-with-invite.ts's.
import { uuidv7 } from 'uuidv7';
import { INVITE_RECEIPT_TTL_SECONDS, toUuidN } from '../../keys/index.ts';
import { sha256Hex, timingSafeEqual } from '../../crypto/index.ts';
import { decodeJson, defineScript, redisCall, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_EMAIL_INDEX_KEY, LUA_SAME } from './lua.ts';
import { inviteRecordSchema, type InviteRecord } from './invite-record.ts';
import { readInviteToken } from './invite-token.ts';
import { recordRegistration, type RecordOutcome } from './outcome.ts';
import { LUA_KEEP_RECEIPT, LUA_NEW_RECEIPT, LUA_RECEIPT_FOR_TOKEN, inviteReceiptSchema, type InviteReceipt } from './receipt.ts';
import { readConsumed } from './read-consumed.ts';
import { returnInvite } from './return-invite.ts';
import { cancelVoidInvite } from './cancel-void-invite.ts';

/**
 * Returns {0} unknown / expired / wrong token / consumed by an accept or cancel; {2} the right token of an invite
 * that was not delivered by email (nothing consumed); {1, receipt} consumed now: object and both index entries
 * removed and a 'register' receipt naming ARGV[4] written in the same step; {3, receipt} already consumed by a
 * registration with this token (a repeat after a lost reply, or a racing one): its receipt names the account's id.
 */
export const REGISTER_INVITE = defineScript({
  name: 'invites.register',
  keys: ['object', 'orgIndex', 'receipt', 'receiptsIndex'],
  args: ['tokenHash', 'emailIndexPrefix', 'member', 'userId', 'attempt', 'correlationId', 'nowMs', 'receiptTtl'],
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local receipt_key = KEYS[3]
local receipts_index_key = KEYS[4]
local token_hash = ARGV[1]
local email_index_prefix = ARGV[2]
local member = ARGV[3]
local user_id = ARGV[4]
local attempt = ARGV[5]
local correlation_id = ARGV[6]
local now_ms = ARGV[7]
local receipt_ttl = tonumber(ARGV[8])
${LUA_EMAIL_INDEX_KEY}
${LUA_SAME}
${LUA_NEW_RECEIPT}
${LUA_KEEP_RECEIPT}
${LUA_RECEIPT_FOR_TOKEN}
local value = redis.call('GET', object_key)
if not value then
  local raw_receipt = receipt_for_token(receipt_key, 'register', token_hash)
  if not raw_receipt then return {0} end
  return {3, raw_receipt}
end
local ok, obj = pcall(cjson.decode, value)
if not ok or type(obj) ~= 'table' or not same(obj['tokenHash'], token_hash) then return {0} end
if obj['delivery'] ~= 'email' then return {2} end
redis.call('DEL', object_key)
redis.call('ZREM', org_index_key, member)
local email_key = email_index_key(email_index_prefix, value)
if email_key then redis.call('ZREM', email_key, member) end
local receipt = new_receipt('register', user_id, attempt, correlation_id, now_ms, value)
keep_receipt(receipt_key, receipts_index_key, member, receipt, now_ms, receipt_ttl)
return {1, receipt}
`,
});

/** What a token names right now: an invite still open, one a registration already consumed (with its account id), or nothing usable. */
export type RegistrationTarget =
  { kind: 'open'; record: InviteRecord } | { kind: 'registered'; record: InviteRecord; userId: string } | { kind: 'invalid' };

/** One read (MGET of the invite and its receipt, one slot), compared in constant time with the token's hash. */
export async function findRegistrationTarget(deps: Deps, token: string): Promise<RegistrationTarget> {
  const target = readInviteToken(token);
  if (target === undefined) return { kind: 'invalid' };
  let keys: [string, string];
  try {
    keys = [
      deps.keys.inviteObject(target.organizationId, target.inviteId),
      deps.keys.inviteReceipt(target.organizationId, target.inviteId),
    ];
  } catch {
    // Bytes that do not form valid UUIDs: the same answer as an unknown token.
    return { kind: 'invalid' };
  }
  const [tokenHash, [rawObject, rawReceipt]] = await Promise.all([
    sha256Hex(token),
    redisCall('invites.register.read', () => deps.redis.retrySafe.mget<(string | null)[]>(...keys)),
  ]);
  const matches = (record: InviteRecord | undefined): record is InviteRecord =>
    record !== undefined &&
    record.organizationId === target.organizationId &&
    timingSafeEqual(new TextEncoder().encode(record.tokenHash), new TextEncoder().encode(tokenHash));
  const open = typeof rawObject === 'string' ? decodeJson(inviteRecordSchema, rawObject) : undefined;
  if (matches(open)) return { kind: 'open', record: open };
  const receipt = typeof rawReceipt === 'string' ? decodeJson(inviteReceiptSchema, rawReceipt) : undefined;
  if (receipt?.kind !== 'register') return { kind: 'invalid' };
  const consumed = decodeJson(inviteRecordSchema, receipt.invite);
  return matches(consumed) ? { kind: 'registered', record: consumed, userId: receipt.actorUserId } : { kind: 'invalid' };
}

export type ConsumeOutcome =
  { ok: true; receipt: InviteReceipt; record: InviteRecord } | { ok: false; reason: 'invalid' | 'not-delivered' };

/** Consumes the invite for a new account with a fresh id, or finds the registration that consumed it with this token. */
export async function consumeForRegistration(deps: Deps, input: { token: string; correlationId: string }): Promise<ConsumeOutcome> {
  const target = readInviteToken(input.token);
  if (target === undefined) return { ok: false, reason: 'invalid' };
  const { keys } = deps;
  const reply = await runScript(deps.redis.atMostOnce, REGISTER_INVITE, {
    keys: {
      object: keys.inviteObject(target.organizationId, target.inviteId),
      orgIndex: keys.inviteActiveByOrg(target.organizationId),
      receipt: keys.inviteReceipt(target.organizationId, target.inviteId),
      receiptsIndex: keys.inviteReceiptsByOrg(target.organizationId),
    },
    args: {
      tokenHash: await sha256Hex(input.token),
      emailIndexPrefix: keys.inviteActiveByEmailHashPrefix(target.organizationId),
      member: toUuidN(target.inviteId),
      userId: uuidv7(),
      attempt: uuidv7(),
      correlationId: input.correlationId,
      nowMs: deps.clock.now(),
      receiptTtl: INVITE_RECEIPT_TTL_SECONDS,
    },
  });
  const [status, rawReceipt] = Array.isArray(reply) ? reply : [];
  if (status === 2) return { ok: false, reason: 'not-delivered' };
  if (status !== 1 && status !== 3) return { ok: false, reason: 'invalid' };
  const consumed = await readConsumed(deps, { raw: rawReceipt, consumedNow: status === 1, ...target, correlationId: input.correlationId });
  return { ok: true, ...consumed };
}

/**
 * Creates the account the receipt names and grants the role. Refused for this invitee (the email has another account,
 * a role conflict) or for now (a suspended organisation): the invite is given back, so the invitee can still sign in
 * and accept it, or register once the organisation is reactivated. Refused for good (its creator no longer an admin
 * there, its organisation deleted): the invite is cancelled (cancel-void-invite.ts). PostgreSQL unavailable: the
 * receipt stays and a repeat finishes; the reconciler gives it back if nobody does (a password cannot be replayed).
 */
export async function finishRegistration(
  deps: Deps,
  input: { receipt: InviteReceipt; record: InviteRecord; passwordHash: string },
): Promise<RecordOutcome> {
  const { receipt, record } = input;
  const recorded = await recordRegistration(deps, {
    record,
    actorUserId: receipt.actorUserId,
    correlationId: receipt.correlationId,
    passwordHash: input.passwordHash,
  });
  if (recorded.ok || recorded.reason === 'finished') return recorded;
  if (recorded.reason === 'void') {
    await cancelVoidInvite(deps, receipt, record, recorded.cause);
    return recorded;
  }
  await returnInvite(deps, {
    organizationId: record.organizationId,
    inviteId: record.inviteId,
    attempt: receipt.attempt,
    correlationId: receipt.correlationId,
  });
  return recorded;
}

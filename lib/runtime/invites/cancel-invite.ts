// invites.cancel: one script removes the invite (or marks an unfinished accept's receipt), leaving a receipt; PostgreSQL
// then records the outcome with `invite.cancelled`. Whoever records an invite's outcome first wins; nothing is undone.
import { uuidv7 } from 'uuidv7';
import { INVITE_RECEIPT_TTL_SECONDS } from '../../keys/index.ts';
import { toUuidN } from '../../keys/index.ts';
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_EMAIL_INDEX_KEY } from './lua.ts';
import type { InviteRecord } from './invite-record.ts';
import { recordCancellation } from './outcome.ts';
import { LUA_KEEP_RECEIPT, LUA_NEW_RECEIPT, type InviteReceipt } from './receipt.ts';
import { readConsumed } from './read-consumed.ts';

/**
 * Returns {0} nothing to cancel (a stray index member is still removed); {1, receipt} removed now with both index
 * entries, a cancel receipt written; {4, receipt} consumed by an accept that may be unfinished: its receipt now names
 * this admin, so nothing gives the invite back and the outcome goes to whoever records it first; {5, receipt} a cancel
 * consumed it earlier (a repeat after a lost reply).
 */
export const CANCEL_INVITE = defineScript({
  name: 'invites.cancel',
  keys: ['object', 'orgIndex', 'receipt', 'receiptsIndex'],
  args: ['emailIndexPrefix', 'member', 'actor', 'attempt', 'correlationId', 'nowMs', 'receiptTtl', 'actorKey'],
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local receipt_key = KEYS[3]
local receipts_index_key = KEYS[4]
local email_index_prefix = ARGV[1]
local member = ARGV[2]
local actor = ARGV[3]
local attempt = ARGV[4]
local correlation_id = ARGV[5]
local now_ms = ARGV[6]
local receipt_ttl = tonumber(ARGV[7])
local actor_key = ARGV[8]
if actor_key == '' then actor_key = nil end
${LUA_EMAIL_INDEX_KEY}
${LUA_NEW_RECEIPT}
${LUA_KEEP_RECEIPT}
local value = redis.call('GET', object_key)
redis.call('ZREM', org_index_key, member)
if not value then
  local raw_receipt = redis.call('GET', receipt_key)
  if not raw_receipt then return {0} end
  local ok, receipt = pcall(cjson.decode, raw_receipt)
  if not ok or type(receipt) ~= 'table' then return {0} end
  if receipt['kind'] == 'cancel' then return {5, raw_receipt} end
  if not receipt['cancelRequestedBy'] then
    receipt['cancelRequestedBy'] = actor
    receipt['cancelRequestedByApiKey'] = actor_key
    raw_receipt = cjson.encode(receipt)
    redis.call('SET', receipt_key, raw_receipt, 'KEEPTTL')
  end
  return {4, raw_receipt}
end
redis.call('DEL', object_key)
local email_key = email_index_key(email_index_prefix, value)
if email_key then redis.call('ZREM', email_key, member) end
local receipt = new_receipt('cancel', actor, attempt, correlation_id, now_ms, value, nil, actor_key)
keep_receipt(receipt_key, receipts_index_key, member, receipt, now_ms, receipt_ttl)
return {1, receipt}
`,
});

export type CancelOutcome = { ok: true } | { ok: false; reason: 'not-active' };

export async function cancelInvite(
  deps: Deps,
  input: { organizationId: string; inviteId: string; actorUserId: string; actorApiKeyId?: string | undefined; correlationId: string },
): Promise<CancelOutcome> {
  const { keys } = deps;
  const reply = await runScript(deps.redis.atMostOnce, CANCEL_INVITE, {
    keys: {
      object: keys.inviteObject(input.organizationId, input.inviteId),
      orgIndex: keys.inviteActiveByOrg(input.organizationId),
      receipt: keys.inviteReceipt(input.organizationId, input.inviteId),
      receiptsIndex: keys.inviteReceiptsByOrg(input.organizationId),
    },
    args: {
      emailIndexPrefix: keys.inviteActiveByEmailHashPrefix(input.organizationId),
      member: toUuidN(input.inviteId),
      actor: input.actorUserId,
      attempt: uuidv7(),
      correlationId: input.correlationId,
      nowMs: deps.clock.now(),
      receiptTtl: INVITE_RECEIPT_TTL_SECONDS,
      // The key that asks, when one does; '' for none (ARGV holds strings only).
      actorKey: input.actorApiKeyId ?? '',
    },
  });
  const [status, rawReceipt] = Array.isArray(reply) ? reply : [];
  if (status !== 1 && status !== 4 && status !== 5) return { ok: false, reason: 'not-active' };
  const { receipt, record } = await readConsumed(deps, { raw: rawReceipt, consumedNow: status === 1, ...input });
  // The admin who first asked (this one, an earlier one whose reply was lost, or the one who marked an accept in
  // flight), under this request's correlation id: the row the admin can find is the one they are answered for.
  const actorUserId = status === 4 ? (receipt.cancelRequestedBy ?? input.actorUserId) : receipt.actorUserId;
  const actorApiKeyId = status === 4 ? receipt.cancelRequestedByApiKey : receipt.actorApiKeyId;
  return finishCancellation(
    deps,
    { ...withoutKey(receipt), actorUserId, ...(actorApiKeyId === undefined ? {} : { actorApiKeyId }), correlationId: input.correlationId },
    record,
  );
}

/**
 * Records the cancellation: used by the cancel itself, its repeat, and the reconciler (which also finishes what a
 * member's removal cancelled, with the reason its receipt carries). A PostgreSQL that cannot answer leaves the
 * receipt in place, so a repeat or the reconciler finishes it later.
 */
export async function finishCancellation(deps: Deps, receipt: InviteReceipt, record: InviteRecord): Promise<CancelOutcome> {
  const recorded = await recordCancellation(deps, {
    record,
    actorUserId: receipt.actorUserId,
    ...(receipt.actorApiKeyId === undefined ? {} : { actorApiKeyId: receipt.actorApiKeyId }),
    correlationId: receipt.correlationId,
    ...(receipt.cancelReason === undefined ? {} : { reason: receipt.cancelReason }),
  });
  if (recorded.ok) return { ok: true };
  // Already cancelled (a repeat) answers the same; accepted first means there was nothing left to cancel.
  if (recorded.reason === 'finished' && recorded.finished.outcome === 'cancelled') return { ok: true };
  return { ok: false, reason: 'not-active' };
}

/** The receipt without its own key, so the actor passed on is the one worked out for this cancel. */
function withoutKey(receipt: InviteReceipt): InviteReceipt {
  const { actorApiKeyId: _ignored, ...rest } = receipt;
  return rest;
}

// The receipt an accept or cancel leaves when it consumes an invite (registry row inviteReceipt), so a lost reply finishes once.
// The receipt's shape is declared with its key (lib/keys/defs/invite.ts).
export { inviteReceiptSchema, type InviteReceipt } from '../../keys/index.ts';

/** Lua: builds the receipt JSON; `consumed` is the invite value that was just removed. */
export const LUA_NEW_RECEIPT = `
local function new_receipt(kind, actor, attempt, correlation_id, now_ms, consumed)
  return cjson.encode({ kind = kind, actorUserId = actor, attempt = attempt, correlationId = correlation_id,
                        consumedAtMs = tonumber(now_ms), invite = consumed })
end
`;

/**
 * Lua: stores a receipt with its TTL and lists it for the reconciler; the index lives at least as long, and drops
 * members whose receipts have expired, so it holds at most one receipt TTL of activity even if no reconciler runs.
 */
export const LUA_KEEP_RECEIPT = `
local function keep_receipt(receipt_key, receipts_index_key, member, receipt, now_ms, ttl)
  local now = math.floor(tonumber(now_ms) / 1000)
  redis.call('SET', receipt_key, receipt, 'EX', ttl)
  redis.call('ZREMRANGEBYSCORE', receipts_index_key, '-inf', now - ttl)
  redis.call('ZADD', receipts_index_key, now, member)
  if redis.call('TTL', receipts_index_key) < ttl then redis.call('EXPIRE', receipts_index_key, ttl) end
end
`;

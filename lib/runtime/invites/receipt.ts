// The receipt an accept or cancel leaves when it consumes an invite (registry row inviteReceipt), so a lost reply finishes once.
// The receipt's shape is declared with its key (lib/keys/defs/invite.ts).
export { inviteReceiptSchema, type InviteReceipt } from '../../keys/index.ts';

/**
 * Lua: builds the receipt JSON; `consumed` is the invite value that was just removed; `cancel_reason` (optional, nil
 * leaves it out) is a cancel's reason when no admin asked for it; `actor_api_key` (optional, nil leaves it out) the
 * organisation's API key that cancelled.
 */
export const LUA_NEW_RECEIPT = `
local function new_receipt(kind, actor, attempt, correlation_id, now_ms, consumed, cancel_reason, actor_api_key)
  return cjson.encode({ kind = kind, actorUserId = actor, attempt = attempt, correlationId = correlation_id,
                        consumedAtMs = tonumber(now_ms), invite = consumed, cancelReason = cancel_reason,
                        actorApiKeyId = actor_api_key })
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

/**
 * Lua (needs `same`): the receipt at `receipt_key` when it was left by a consumption of `kind` with the token whose
 * hash is `token_hash` — a repeat of that caller — as its raw JSON and decoded table; nil otherwise.
 */
export const LUA_RECEIPT_FOR_TOKEN = `
local function receipt_for_token(receipt_key, kind, token_hash)
  local raw_receipt = redis.call('GET', receipt_key)
  if not raw_receipt then return nil end
  local ok, receipt = pcall(cjson.decode, raw_receipt)
  if not ok or type(receipt) ~= 'table' or receipt['kind'] ~= kind or type(receipt['invite']) ~= 'string' then return nil end
  local decoded, invite = pcall(cjson.decode, receipt['invite'])
  if not decoded or type(invite) ~= 'table' or not same(invite['tokenHash'], token_hash) then return nil end
  return raw_receipt, receipt
end
`;

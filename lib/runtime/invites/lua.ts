// Lua fragments shared by the invite scripts (Redis 6.0 commands only).
/** Index members are UUID "N" form; object keys use the dashed form. */
export const LUA_DASHED_UUID = `
local function dashed(n)
  return string.sub(n, 1, 8) .. '-' .. string.sub(n, 9, 12) .. '-' .. string.sub(n, 13, 16) .. '-' ..
         string.sub(n, 17, 20) .. '-' .. string.sub(n, 21, 32)
end
local function is_uuid_n(n)
  return type(n) == 'string' and #n == 32 and string.match(n, '^[0-9a-f]+$') ~= nil
end
`;

/** Raises an index's TTL to at least `ttl` seconds; never shortens it (an older, longer-lived member may be inside). */
export const LUA_KEEP_INDEX_ALIVE = `
local function keep_index_alive(key, ttl)
  if redis.call('TTL', key) < ttl then redis.call('EXPIRE', key, ttl) end
end
`;

/**
 * The email-index key of a stored invite and its email hash, or nil when the stored hash is not the 64-hex shape keys
 * allow. `prefix` is the organisation's email-index prefix, under the same `org:{<orgId>}` tag as the script's
 * declared keys, so the derived key stays in their cluster slot.
 */
export const LUA_EMAIL_INDEX_KEY = `
local function email_index_key(prefix, raw)
  local ok, obj = pcall(cjson.decode, raw)
  if not ok or type(obj) ~= 'table' then return nil end
  local h = obj['emailHash']
  if type(h) ~= 'string' or #h ~= 64 or string.match(h, '^[0-9a-f]+$') == nil then return nil end
  return prefix .. h, h
end
`;

/**
 * Lists an email index in the organisation's registry of them (registry row inviteEmailIndexesByOrg), scored by the
 * latest expiry it holds (raised, never lowered), so the cleanup cron finds it without scanning. Needs keep_index_alive.
 */
export const LUA_REGISTER_EMAIL_INDEX = `
local function register_email_index(registry_key, email_hash, expires_at, ttl)
  local held = redis.call('ZSCORE', registry_key, email_hash)
  if not held or tonumber(held) < tonumber(expires_at) then redis.call('ZADD', registry_key, expires_at, email_hash) end
  keep_index_alive(registry_key, ttl)
end
`;

/** Compares a stored string with a presented one in time independent of where they differ (token and email hashes). */
export const LUA_SAME = `
local function same(a, b)
  if type(a) ~= 'string' or #a ~= #b then return false end
  local diff = 0
  for i = 1, #a do diff = bit.bor(diff, bit.bxor(string.byte(a, i), string.byte(b, i))) end
  return diff == 0
end
`;

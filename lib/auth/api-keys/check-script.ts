// apikey.check: one script on the organisation's slot reads the key's entry, checks it, and counts the request in the
// API rate limiter's counters with the key's own limit, so a hit costs one round trip and no PostgreSQL.
import { defineScript } from '../../redis/index.ts';
import { LUA_PLAN_QUOTAS, LUA_SLIDING_WINDOW } from '../../runtime/ratelimit/lua.ts';
import { LUA_THROTTLE_HIT } from '../../runtime/throttle/index.ts';

/**
 * KEYS: the key's entry (apiKeyEntry), the caller's api-key-refused-ip counter, then the rate limiter's nine counters
 * (route, key, tenant: current, previous, next) and the organisation's cache generation, as ratelimit.countOrg takes them.
 * ARGV: the least `seq` an entry may carry, now (unix ms), the scope the route needs, the refused counter's window TTL
 * and limit, then the limiter's default quotas, previous weight, counters' TTL and plan entry prefix and suffix.
 * Returns, in this order of checks:
 * {'limited', ttl}: the address already spent its refusals (nothing read);
 * {'miss'}: no entry, an unreadable one, or one older than `min_seq` (nothing counted);
 * {'refused'}: unknown, revoked or expired (one refusal counted for the address);
 * {'scope-missing', entry}; or
 * {'checked', entry, admitted, plan found, then per limit quota, current, previous} as ratelimit.countOrg answers.
 * The key's `rateLimitPerMinute` replaces the per-user quota (a plan's or the default) for this key.
 */
export const API_KEY_CHECK = defineScript({
  name: 'apikey.check',
  keys: [
    'entry',
    'refused',
    'routeCurrent',
    'routePrevious',
    'routeNext',
    'keyCurrent',
    'keyPrevious',
    'keyNext',
    'tenantCurrent',
    'tenantPrevious',
    'tenantNext',
    'generation',
  ],
  args: [
    'minSeq',
    'nowMs',
    'scope',
    'refusedWindowTtl',
    'refusedLimit',
    'routeQuota',
    'keyQuota',
    'tenantQuota',
    'previousWeight',
    'ttlSeconds',
    'entryPrefix',
    'entrySuffix',
  ],
  source: `
local entry_key = KEYS[1]
local refused_key = KEYS[2]
local route_current_key = KEYS[3]
local route_previous_key = KEYS[4]
local route_next_key = KEYS[5]
local key_current_key = KEYS[6]
local key_previous_key = KEYS[7]
local key_next_key = KEYS[8]
local tenant_current_key = KEYS[9]
local tenant_previous_key = KEYS[10]
local tenant_next_key = KEYS[11]
local generation_key = KEYS[12]
local min_seq = tonumber(ARGV[1])
local now_ms = tonumber(ARGV[2])
local scope = ARGV[3]
local refused_window_ttl = tonumber(ARGV[4])
local refused_limit = tonumber(ARGV[5])
local route_quota = tonumber(ARGV[6])
local key_quota = tonumber(ARGV[7])
local tenant_quota = tonumber(ARGV[8])
local previous_weight = tonumber(ARGV[9])
local ttl_seconds = tonumber(ARGV[10])
local entry_prefix = ARGV[11]
local entry_suffix = ARGV[12]
${LUA_THROTTLE_HIT}
${LUA_SLIDING_WINDOW}
${LUA_PLAN_QUOTAS}
local spent = tonumber(redis.call('GET', refused_key)) or 0
if spent >= refused_limit then return {'limited', redis.call('TTL', refused_key)} end
local raw = redis.call('GET', entry_key)
if not raw then return {'miss'} end
local ok, entry = pcall(cjson.decode, raw)
if not ok or type(entry) ~= 'table' or type(entry.seq) ~= 'number' or entry.seq < min_seq then return {'miss'} end
if entry.state ~= 'active' or (type(entry.expiresAtMs) == 'number' and entry.expiresAtMs <= now_ms) then
  hit_throttle(refused_key, refused_window_ttl)
  return {'refused'}
end
local granted = false
if type(entry.scopes) == 'table' then
  for i = 1, #entry.scopes do
    if entry.scopes[i] == scope then granted = true end
  end
end
if not granted then return {'scope-missing', raw} end
local quotas = {route_quota, key_quota, tenant_quota}
local plan_found = plan_quotas(generation_key, entry_prefix, entry_suffix, quotas)
if type(entry.rateLimitPerMinute) == 'number' then quotas[2] = entry.rateLimitPerMinute end
local counter_keys = {
  route_current_key, route_previous_key, route_next_key,
  key_current_key, key_previous_key, key_next_key,
  tenant_current_key, tenant_previous_key, tenant_next_key,
}
local reply = sliding_admit(counter_keys, quotas, previous_weight, ttl_seconds)
table.insert(reply, 1, 'checked')
table.insert(reply, 2, raw)
table.insert(reply, 4, plan_found)
return reply
`,
});

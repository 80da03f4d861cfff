// The sliding window as Lua fragments, so the org and the user variant of the count script share one algorithm.
/**
 * The sliding window of @upstash/ratelimit (its `slidingWindow`): the current fixed window's count plus the previous
 * window's, weighted by how much of it the sliding window still covers (`previous_weight` = 1 - elapsed / window,
 * floored as there). One addition for clocks that disagree: the next window's count is added too. An isolate whose
 * clock runs behind still counts in the window an isolate ahead has left; without the next window it would not see
 * what the one ahead counted there, and the two together could admit nearly twice the quota around a window's edge.
 * `sliding_admit` admits only when every counter has room, and then counts in all of them, so a refused request costs
 * no quota; a first INCR, or a counter found without a TTL, gets the TTL (two windows and a second). `counter_keys`
 * holds each limit's current, previous and next window in turn; the reply gives, per limit, its quota, its current
 * count with the next window's (after this request when admitted) and its previous window's count.
 */
export const LUA_SLIDING_WINDOW = `
local function sliding_admit(counter_keys, quotas, previous_weight, ttl_seconds)
  local loaded = {}
  local admitted = 1
  for i = 1, #quotas do
    local current = tonumber(redis.call('GET', counter_keys[3 * i - 2])) or 0
    local previous = tonumber(redis.call('GET', counter_keys[3 * i - 1])) or 0
    local next = tonumber(redis.call('GET', counter_keys[3 * i])) or 0
    if math.floor(previous * previous_weight) + current + next >= quotas[i] then admitted = 0 end
    loaded[i] = {current, previous, next}
  end
  local reply = {admitted}
  for i = 1, #quotas do
    local current = loaded[i][1]
    if admitted == 1 then
      current = redis.call('INCR', counter_keys[3 * i - 2])
      if current == 1 or redis.call('TTL', counter_keys[3 * i - 2]) < 0 then
        redis.call('EXPIRE', counter_keys[3 * i - 2], ttl_seconds)
      end
    end
    reply[#reply + 1] = quotas[i]
    reply[#reply + 1] = current + loaded[i][3]
    reply[#reply + 1] = loaded[i][2]
  end
  return reply
end
`;

/**
 * The organisation's plan limits from its read-through cache entry, read under the generation the same script just read
 * (as cache.readOrgEntry does): the quotas it names replace the defaults; a missing, malformed or out-of-range value
 * keeps the default. Returns whether the entry was there, so the caller knows to fill it.
 */
export const LUA_PLAN_QUOTAS = `
local function plan_quotas(generation_key, entry_prefix, entry_suffix, quotas)
  local generation = redis.call('GET', generation_key)
  if not generation then generation = '0' end
  if generation ~= '0' and (string.len(generation) ~= 32 or not string.match(generation, '^[0-9a-f]+$')) then
    return 0
  end
  local raw = redis.call('GET', entry_prefix .. generation .. entry_suffix)
  if not raw then return 0 end
  local ok, plan = pcall(cjson.decode, raw)
  if not ok or type(plan) ~= 'table' then return 0 end
  local fields = {'userRoute', 'user', 'tenant'}
  for i = 1, #fields do
    local value = plan[fields[i]]
    if type(value) == 'number' and value >= 1 and value <= 10000000 and value == math.floor(value) then
      quotas[i] = value
    end
  end
  return 1
end
`;

// The fixed-window counter as a Lua fragment, so an operation's own script can count its hit in the same round trip.
/**
 * hit_throttle(key, window_ttl): one INCR; the TTL is set on the first hit and restored whenever the counter is
 * found without one (a counter left without a TTL would never reset: "TTL -1 self-heal"). Returns the count and
 * the seconds the window still has, which is what `retry-after` says.
 */
export const LUA_THROTTLE_HIT = `
local function hit_throttle(key, window_ttl)
  local count = redis.call('INCR', key)
  local ttl = redis.call('TTL', key)
  if ttl < 0 then
    redis.call('EXPIRE', key, window_ttl)
    ttl = window_ttl
  end
  return count, ttl
end
`;

// The two scripts of a passkey challenge's life on the public routes: stored beside the caller's per-address counter, and
// consumed (read and deleted) beside it, each one round trip (keys under platform:{passkey}, one slot).
import { LUA_THROTTLE_HIT } from '../../runtime/throttle/index.ts';
import { defineScript } from '../../redis/index.ts';

/**
 * KEYS[1] the challenge's key (passkeyChallenge), KEYS[2] the caller's passkey-options-ip counter (throttleCounter)
 * ARGV[1] seconds left in the counter's window, ARGV[2] its limit, ARGV[3] the challenge's TTL, ARGV[4] its value
 * Returns {'limited', seconds left} (nothing stored) or {'issued'}. NX: 256 random bits never collide, and a value
 * somebody else was given is never overwritten.
 */
export const ISSUE_PASSKEY_CHALLENGE = defineScript({
  name: 'passkey.issue-counted',
  keys: ['challenge', 'counter'],
  args: ['windowTtl', 'limit', 'ttl', 'value'],
  source: `
local challenge_key = KEYS[1]
local counter_key = KEYS[2]
local window_ttl = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local value = ARGV[4]
${LUA_THROTTLE_HIT}
local count, left = hit_throttle(counter_key, window_ttl)
if count > limit then return {'limited', left} end
redis.call('SET', challenge_key, value, 'EX', ttl, 'NX')
return {'issued'}
`,
});

/**
 * KEYS[1] the challenge's key (passkeyChallenge), KEYS[2] the caller's passkey-verify-ip counter (throttleCounter)
 * ARGV[1] seconds left in the counter's window, ARGV[2] its limit
 * Returns {'limited', seconds left} (the challenge untouched), {'value', value} (deleted in this step) or {'none'}. Run
 * once (atMostOnce): a retry after a lost reply would find nothing and answer "invalid" for a challenge it consumed.
 */
export const CONSUME_PASSKEY_CHALLENGE = defineScript({
  name: 'passkey.consume-counted',
  keys: ['challenge', 'counter'],
  args: ['windowTtl', 'limit'],
  source: `
local challenge_key = KEYS[1]
local counter_key = KEYS[2]
local window_ttl = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
${LUA_THROTTLE_HIT}
local count, left = hit_throttle(counter_key, window_ttl)
if count > limit then return {'limited', left} end
local value = redis.call('GET', challenge_key)
if not value then return {'none'} end
redis.call('DEL', challenge_key)
return {'value', value}
`,
});

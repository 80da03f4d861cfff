// Lua fragments the two answers to an MFA challenge share (a TOTP code, a recovery code): finding the challenge and the
// user's lock, and counting a wrong code on the challenge and on the user (Redis 6.0 commands only).

/**
 * Needs `same`. Returns the raw challenge and its table when the verifier is this token's and the user is not locked;
 * otherwise nil and the script's reply: {0} no such challenge or not this token's, {3, ttl} locked (nothing changed).
 */
export const LUA_OPEN_CHALLENGE = `
local function open_challenge(challenge_key, failures_key, verifier, failure_limit, failure_window_ttl)
  local raw = redis.call('GET', challenge_key)
  if not raw then return nil, nil, {0} end
  local ok, challenge = pcall(cjson.decode, raw)
  if not ok or type(challenge) ~= 'table' or not same(challenge['verifier'], verifier) then return nil, nil, {0} end
  local failures = tonumber(redis.call('GET', failures_key)) or 0
  if failures >= failure_limit then
    local ttl = redis.call('TTL', failures_key)
    if ttl < 0 then
      redis.call('EXPIRE', failures_key, failure_window_ttl)
      ttl = failure_window_ttl
    end
    return nil, nil, {3, ttl}
  end
  return raw, challenge, nil
end
`;

/**
 * Needs `hit_throttle`. A wrong code: one try fewer on the challenge (deleted with its session state at 0, its TTL kept
 * otherwise) and one failure on the user. Returns the reply {2, attempts left}.
 */
export const LUA_COUNT_WRONG_CODE = `
local function count_wrong_code(challenge_key, session_state_key, failures_key, challenge, failure_window_ttl)
  local left = (tonumber(challenge['attemptsLeft']) or 0) - 1
  if left > 0 then
    challenge['attemptsLeft'] = left
    local pttl = redis.call('PTTL', challenge_key)
    if pttl > 0 then redis.call('SET', challenge_key, cjson.encode(challenge), 'PX', pttl) end
  else
    left = 0
    redis.call('DEL', challenge_key, session_state_key)
  end
  hit_throttle(failures_key, failure_window_ttl)
  return {2, left}
end
`;

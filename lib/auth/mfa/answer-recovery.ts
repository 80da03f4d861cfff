// mfa.answerChallengeWithRecoveryCode: the verify script's twin for a recovery code. The same checks and counters (the
// challenge's tries, the user's mfa-verify failures); no replay guard, because a code's single use is PostgreSQL's
// conditional UPDATE, made in the transaction that opens the session (lib/auth/mfa/recover-mfa.ts).
import { sha256Hex } from '../../crypto/index.ts';
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_SAME } from '../../runtime/invites/lua.ts';
import { LUA_THROTTLE_HIT, retryAfter, throttleWindow } from '../../runtime/throttle/index.ts';
import { challengeRecord, sessionStateRecord } from './challenge-record.ts';
import type { AnswerChallengeOutcome } from './answer-challenge.ts';

/**
 * KEYS (under the user's hash tag): [1] the challenge (mfaChallenge), [2] its session state (authSessionState), [3] the
 * user's mfa-verify failure counter of this window (throttleCounter).
 * ARGV: [1] SHA-256 hex of the presented token, [2] '1' when PostgreSQL holds the code unused, [3] failures allowed
 * per window, [4] seconds left in the window.
 * Returns {0} no such challenge or not this token's (nothing counted); {3, ttl} locked (nothing changed);
 * {1, challenge, session state} consumed (both deleted: one caller only); {2, attempts left} a wrong code, counted
 * on the challenge (deleted at 0) and on the user, exactly as mfa.answerChallenge counts a wrong TOTP code.
 */
export const ANSWER_MFA_RECOVERY = defineScript({
  name: 'mfa.answerChallengeWithRecoveryCode',
  keys: ['challenge', 'sessionState', 'failures'],
  args: ['verifier', 'codeMatched', 'failureLimit', 'failureWindowTtl'],
  source: `
local challenge_key = KEYS[1]
local session_state_key = KEYS[2]
local failures_key = KEYS[3]
local verifier = ARGV[1]
local code_matched = ARGV[2] == '1'
local failure_limit = tonumber(ARGV[3])
local failure_window_ttl = tonumber(ARGV[4])
${LUA_THROTTLE_HIT}
${LUA_SAME}
local raw = redis.call('GET', challenge_key)
if not raw then return {0} end
local ok, challenge = pcall(cjson.decode, raw)
if not ok or type(challenge) ~= 'table' or not same(challenge['verifier'], verifier) then return {0} end
local failures = tonumber(redis.call('GET', failures_key)) or 0
if failures >= failure_limit then
  local ttl = redis.call('TTL', failures_key)
  if ttl < 0 then
    redis.call('EXPIRE', failures_key, failure_window_ttl)
    ttl = failure_window_ttl
  end
  return {3, ttl}
end
if code_matched then
  local session_state = redis.call('GET', session_state_key)
  redis.call('DEL', challenge_key, session_state_key)
  return {1, raw, session_state or ''}
end
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
`,
});

/** atMostOnce, like mfa.answerChallenge: a consuming script must not run twice; Redis down or late is a 503. */
export async function answerChallengeWithRecoveryCode(
  deps: Deps,
  input: { token: string; userId: string; challengeId: string; codeMatched: boolean },
): Promise<AnswerChallengeOutcome> {
  const { keys } = deps;
  const failures = await throttleWindow(deps, { action: 'mfa-verify', scope: { kind: 'user', id: input.userId }, subject: input.userId });
  const reply = await runScript(deps.redis.atMostOnce, ANSWER_MFA_RECOVERY, {
    keys: {
      challenge: keys.mfaChallenge(input.userId, input.challengeId),
      sessionState: keys.authSessionState(input.userId, input.challengeId),
      failures: failures.key,
    },
    args: {
      verifier: await sha256Hex(input.token),
      codeMatched: input.codeMatched ? '1' : '0',
      failureLimit: failures.limit,
      failureWindowTtl: failures.ttlSeconds,
    },
  });
  const [status, first, second] = Array.isArray(reply) ? reply : [];
  if (status === 3) return { ok: false, reason: 'locked', retryAfterSeconds: retryAfter(first, failures.ttlSeconds) };
  if (status === 2) return { ok: false, reason: 'wrong-code', attemptsLeft: typeof first === 'number' ? first : 0 };
  if (status !== 1) return { ok: false, reason: 'invalid' };
  const challenge = decodeJson(challengeRecord, first);
  const sessionState = decodeJson(sessionStateRecord, second);
  if (challenge === undefined || sessionState === undefined) return { ok: false, reason: 'invalid' };
  if (challenge.userId !== input.userId || sessionState.sessionStateId !== challenge.challengeId) return { ok: false, reason: 'invalid' };
  return { ok: true, challenge, sessionState };
}

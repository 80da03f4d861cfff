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
import { LUA_COUNT_WRONG_CODE, LUA_OPEN_CHALLENGE } from './challenge-lua.ts';

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
${LUA_OPEN_CHALLENGE}
${LUA_COUNT_WRONG_CODE}
local raw, challenge, refused = open_challenge(challenge_key, failures_key, verifier, failure_limit, failure_window_ttl)
if not raw then return refused end
if code_matched then
  local session_state = redis.call('GET', session_state_key)
  redis.call('DEL', challenge_key, session_state_key)
  return {1, raw, session_state or ''}
end
return count_wrong_code(challenge_key, session_state_key, failures_key, challenge, failure_window_ttl)
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

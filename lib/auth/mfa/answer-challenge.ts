// mfa.answerChallenge: one script checks the challenge, the user's failure counter and the replay guard, then either
// consumes the challenge and burns the code's step, or counts the wrong code on the challenge and on the user.
import { sha256Hex } from '../../crypto/index.ts';
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_SAME } from '../../runtime/invites/lua.ts';
import { LUA_THROTTLE_HIT, retryAfter, throttleWindow } from '../../runtime/throttle/index.ts';
import { challengeRecord, sessionStateRecord, type ChallengeRecord, type SessionStateRecord } from './challenge-record.ts';
import { replayGuardTtlMs } from './policy.ts';
import { LUA_COUNT_WRONG_CODE, LUA_OPEN_CHALLENGE } from './challenge-lua.ts';

/**
 * KEYS (all under the user's hash tag): [1] the challenge (mfaChallenge), [2] its session state (authSessionState, same
 * id), [3] the user's mfa-verify failure counter of this window (throttleCounter), [4] the replay guard of the step the
 * code matched (mfaTotpUsed; of the current step when none matched, and then never touched).
 * ARGV: [1] SHA-256 hex of the presented token, [2] '1' when the code matched a step, [3] the replay guard's TTL (ms),
 * [4] failures allowed per window, [5] seconds left in the window (the counter's TTL).
 * Returns {0} no such challenge, or not this token's (nothing counted: only a holder of the token can spend its tries);
 * {3, ttl} the user has had too many failures this window (nothing changed);
 * {1, challenge, session state} consumed: both deleted and the step burned, so only one caller ever gets here;
 * {2, attempts left} a wrong or already used code: counted on the challenge (deleted at 0) and on the user.
 * Never GETDEL (Redis 6.0): GET then DEL inside the script is as atomic.
 */
export const ANSWER_MFA_CHALLENGE = defineScript({
  name: 'mfa.answerChallenge',
  keys: ['challenge', 'sessionState', 'failures', 'replay'],
  args: ['verifier', 'codeMatched', 'replayTtlMs', 'failureLimit', 'failureWindowTtl'],
  source: `
local challenge_key = KEYS[1]
local session_state_key = KEYS[2]
local failures_key = KEYS[3]
local replay_key = KEYS[4]
local verifier = ARGV[1]
local code_matched = ARGV[2] == '1'
local replay_ttl_ms = tonumber(ARGV[3])
local failure_limit = tonumber(ARGV[4])
local failure_window_ttl = tonumber(ARGV[5])
${LUA_THROTTLE_HIT}
${LUA_SAME}
${LUA_OPEN_CHALLENGE}
${LUA_COUNT_WRONG_CODE}
local raw, challenge, refused = open_challenge(challenge_key, failures_key, verifier, failure_limit, failure_window_ttl)
if not raw then return refused end
if code_matched and redis.call('EXISTS', replay_key) == 0 then
  local session_state = redis.call('GET', session_state_key)
  redis.call('DEL', challenge_key, session_state_key)
  redis.call('SET', replay_key, '1', 'PX', replay_ttl_ms)
  return {1, raw, session_state or ''}
end
return count_wrong_code(challenge_key, session_state_key, failures_key, challenge, failure_window_ttl)
`,
});

export interface AnswerChallengeInput {
  token: string;
  userId: string;
  challengeId: string;
  /** The TOTP step the code matched (matchTotp), or undefined when it matched none. */
  matchedStep: number | undefined;
  /** The step of now, naming the (untouched) replay-guard key when no step matched. */
  currentStep: number;
}

export type AnswerChallengeOutcome =
  | { ok: true; challenge: ChallengeRecord; sessionState: SessionStateRecord }
  /** No such challenge, another token's, an unreadable one, a wrong or used code: one answer to the caller. */
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'wrong-code'; attemptsLeft: number }
  | { ok: false; reason: 'locked'; retryAfterSeconds: number };

/**
 * atMostOnce (2 s, no retry): a consuming script must not run twice. Redis unreachable or late: RedisUnavailableError
 * (503). A late landing has either spent the challenge and burned the step (the caller got 503 and no session: it signs
 * in again) or counted one wrong code; neither ever opens a session.
 */
export async function answerChallenge(deps: Deps, input: AnswerChallengeInput): Promise<AnswerChallengeOutcome> {
  const { keys } = deps;
  // The failure counter is the user's, not the challenge's: a new challenge starts with the failures it had.
  const failures = await throttleWindow(deps, { action: 'mfa-verify', scope: { kind: 'user', id: input.userId }, subject: input.userId });
  const step = input.matchedStep ?? input.currentStep;
  const reply = await runScript(deps.redis.atMostOnce, ANSWER_MFA_CHALLENGE, {
    keys: {
      challenge: keys.mfaChallenge(input.userId, input.challengeId),
      sessionState: keys.authSessionState(input.userId, input.challengeId),
      failures: failures.key,
      replay: keys.mfaTotpUsed(input.userId, step),
    },
    args: {
      verifier: await sha256Hex(input.token),
      codeMatched: input.matchedStep === undefined ? '0' : '1',
      replayTtlMs: replayGuardTtlMs(step, deps.clock.now()),
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
  // Consumed either way; a record this version cannot read opens no session (fail closed).
  if (challenge === undefined || sessionState === undefined) return { ok: false, reason: 'invalid' };
  if (challenge.userId !== input.userId || sessionState.sessionStateId !== challenge.challengeId) return { ok: false, reason: 'invalid' };
  return { ok: true, challenge, sessionState };
}

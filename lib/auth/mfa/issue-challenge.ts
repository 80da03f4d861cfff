// mfa.issueChallenge: after the password, one script writes the challenge and the half-finished login beside it; the
// caller gets the token, which is shown once and stored only as its SHA-256.
import { uuidv7 } from 'uuidv7';
import { sha256Hex } from '../../crypto/index.ts';
import { defineScript, encodeJson, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { challengeRecord, sessionStateRecord } from './challenge-record.ts';
import { issueChallengeToken } from './challenge-token.ts';
import { MFA_CHALLENGE_ATTEMPTS, MFA_CHALLENGE_TTL_SECONDS } from './policy.ts';

/**
 * KEYS[1] the challenge (registry row mfaChallenge), KEYS[2] the session state (authSessionState); both under the
 * user's hash tag and one id. ARGV[1] challenge JSON, ARGV[2] session-state JSON, ARGV[3] TTL seconds of both.
 * Both or neither: a challenge without its login could never open a session. Returns 1. The values are the same on a
 * repeat, so a retried call that ran twice changes nothing.
 */
export const ISSUE_MFA_CHALLENGE = defineScript({
  name: 'mfa.issueChallenge',
  keys: ['challenge', 'sessionState'],
  args: ['challenge', 'sessionState', 'ttl'],
  source: `
local challenge_key = KEYS[1]
local session_state_key = KEYS[2]
local challenge = ARGV[1]
local session_state = ARGV[2]
local ttl = tonumber(ARGV[3])
redis.call('SET', challenge_key, challenge, 'EX', ttl)
redis.call('SET', session_state_key, session_state, 'EX', ttl)
return 1
`,
});

export interface IssueChallengeInput {
  userId: string;
  organizationId: string;
  /** The email the password was verified for, as PostgreSQL holds it. */
  email: string;
  /** users.credential_epoch as the password step read it: the session opens only while it still holds (migrations/0015). */
  credentialEpoch: number;
  /** Set when the first step was an OpenID provider's sign-in rather than the password: the session opens as `oidc+totp`. */
  providerId?: string;
  correlationId: string;
}

export interface IssuedChallenge {
  challengeToken: string;
  expiresInSeconds: number;
}

/** Redis unreachable: throws RedisUnavailableError (503): no challenge, and no tokens either. */
export async function issueChallenge(deps: Deps, input: IssueChallengeInput): Promise<IssuedChallenge> {
  const challengeId = uuidv7();
  const challengeToken = issueChallengeToken(input.userId, challengeId);
  const nowMs = deps.clock.now();
  const createdAtUtc = new Date(nowMs).toISOString();
  const expiresAtUtc = new Date(nowMs + MFA_CHALLENGE_TTL_SECONDS * 1000).toISOString();
  const challenge = encodeJson(challengeRecord, {
    challengeId,
    userId: input.userId,
    credentialEpoch: input.credentialEpoch,
    verifier: await sha256Hex(challengeToken),
    createdAtUtc,
    expiresAtUtc,
    attemptsLeft: MFA_CHALLENGE_ATTEMPTS,
    correlationId: input.correlationId,
  });
  const sessionState = encodeJson(sessionStateRecord, {
    sessionStateId: challengeId,
    organizationId: input.organizationId,
    email: input.email,
    ...(input.providerId !== undefined ? { providerId: input.providerId } : {}),
    createdAtUtc,
    expiresAtUtc,
    correlationId: input.correlationId,
  });
  // retrySafe: the same two SETs twice are one; a late landing leaves a challenge nobody holds the token of, for 5 minutes.
  await runScript(deps.redis.retrySafe, ISSUE_MFA_CHALLENGE, {
    keys: {
      challenge: deps.keys.mfaChallenge(input.userId, challengeId),
      sessionState: deps.keys.authSessionState(input.userId, challengeId),
    },
    args: { challenge, sessionState, ttl: MFA_CHALLENGE_TTL_SECONDS },
  });
  return { challengeToken, expiresInSeconds: MFA_CHALLENGE_TTL_SECONDS };
}

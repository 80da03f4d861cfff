// passkeys.issueChallenge: a fresh challenge stored under its hash for 5 minutes, bound to its ceremony and organisation
// (and, for a registration or an enrolment, the user). The public authentication options count the caller's address in the same script.
import { PASSKEY_CHALLENGE_TTL_SECONDS, passkeyChallengeSchema, type PasskeyChallenge } from '../../keys/index.ts';
import { encodeJson, redisCall, runScript } from '../../redis/index.ts';
import { ipSubject, retryAfter, throttleWindow } from '../../runtime/throttle/index.ts';
import type { Deps } from '../../deps.ts';
import { newPasskeyChallenge, passkeyChallengeKey } from './challenge.ts';
import { ISSUE_PASSKEY_CHALLENGE } from './challenge-scripts.ts';

/** The counters live beside the challenges (platform:{passkey}), so one script reaches both on a cluster. */
export const PASSKEY_THROTTLE_SCOPE = { kind: 'platform', tag: 'passkey' } as const;

export type IssuedChallenge = { ok: true; challenge: string } | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

/**
 * A registration's challenge: the bearer route's own limiter already counted the caller, so a plain SET. retrySafe: a
 * fresh key, so a retry that lands twice is the same one write (NX never overwrites what somebody else was given).
 */
export async function issueRegistrationChallenge(
  deps: Deps,
  input: { userId: string; organizationId: string | null; correlationId: string },
): Promise<string> {
  return storeChallenge(deps, { ceremony: 'registration', ...input, issuedAtUtc: new Date(deps.clock.now()).toISOString() });
}

/** An enrolment's challenge (lib/auth/sign-in-policy/enrol-passkey.ts): stored as a registration's is. */
export async function issueEnrolmentChallenge(
  deps: Deps,
  input: { userId: string; organizationId: string; enrolmentId: string; correlationId: string },
): Promise<string> {
  return storeChallenge(deps, { ceremony: 'enrolment', ...input, issuedAtUtc: new Date(deps.clock.now()).toISOString() });
}

async function storeChallenge(deps: Deps, binding: PasskeyChallenge): Promise<string> {
  const challenge = newPasskeyChallenge();
  const key = (await passkeyChallengeKey(deps.keys, challenge))!;
  const value = encodeJson(passkeyChallengeSchema, binding);
  await redisCall(`passkey.issue-${binding.ceremony}`, () =>
    deps.redis.retrySafe.set(key, value, { ex: PASSKEY_CHALLENGE_TTL_SECONDS, nx: true }),
  );
  return challenge;
}

/**
 * An authentication's challenge, for anyone who asks (no account is named): the address is counted first, in the same
 * script (passkey-options-ip), and over its limit nothing is stored. atMostOnce: a retried script would count twice.
 */
export async function issueAuthenticationChallenge(
  deps: Deps,
  input: { organizationId: string; clientIp: string | undefined; correlationId: string },
): Promise<IssuedChallenge> {
  const challenge = newPasskeyChallenge();
  const key = (await passkeyChallengeKey(deps.keys, challenge))!;
  const window = await throttleWindow(deps, {
    action: 'passkey-options-ip',
    scope: PASSKEY_THROTTLE_SCOPE,
    subject: ipSubject(input.clientIp),
  });
  const value = encodeJson(passkeyChallengeSchema, {
    ceremony: 'authentication',
    organizationId: input.organizationId,
    issuedAtUtc: new Date(deps.clock.now()).toISOString(),
    correlationId: input.correlationId,
  } satisfies PasskeyChallenge);
  const reply = await runScript(deps.redis.atMostOnce, ISSUE_PASSKEY_CHALLENGE, {
    keys: { challenge: key, counter: window.key },
    args: { windowTtl: window.ttlSeconds, limit: window.limit, ttl: PASSKEY_CHALLENGE_TTL_SECONDS, value },
  });
  const [kind, left] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (kind === 'limited') return { ok: false, reason: 'rate-limited', retryAfterSeconds: retryAfter(left, window.ttlSeconds) };
  return { ok: true, challenge };
}

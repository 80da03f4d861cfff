// passkeys.consumeChallenge: the challenge a response's clientDataJSON names, read and deleted in one script whatever the
// rest of the response says, so a challenge answers exactly one verify. The public sign-in counts the address first.
import { passkeyChallengeSchema, type PasskeyChallenge } from '../../keys/index.ts';
import { decodeJson, runScript } from '../../redis/index.ts';
import { CONSUME_ONCE } from '../../runtime/single-use/consume-once.ts';
import { ipSubject, retryAfter, throttleWindow } from '../../runtime/throttle/index.ts';
import type { Deps } from '../../deps.ts';
import { passkeyChallengeKey } from './challenge.ts';
import { CONSUME_PASSKEY_CHALLENGE } from './challenge-scripts.ts';
import { PASSKEY_THROTTLE_SCOPE } from './issue-challenge.ts';

export type ConsumedChallenge =
  | { kind: 'consumed'; challenge: PasskeyChallenge }
  /** Never issued, expired, already consumed (a replay), not of our shape, or unreadable: one outcome. */
  | { kind: 'none' }
  | { kind: 'rate-limited'; retryAfterSeconds: number };

/** A registration's verify (a bearer route, counted by its limiter): the single-use GET+DEL script, run once. */
export async function consumeRegistrationChallenge(deps: Deps, challenge: string): Promise<ConsumedChallenge> {
  const key = await passkeyChallengeKey(deps.keys, challenge);
  if (key === undefined) return { kind: 'none' };
  const raw = await runScript(deps.redis.atMostOnce, CONSUME_ONCE, { keys: { token: key } });
  const value = decodeJson(passkeyChallengeSchema, raw);
  return value === undefined ? { kind: 'none' } : { kind: 'consumed', challenge: value };
}

/**
 * The public sign-in's verify: passkey-verify-ip counted in the same script, before the challenge is read, so a flood of
 * made-up challenges from one address stops at the limit, each one round trip and nothing else.
 */
export async function consumeAuthenticationChallenge(
  deps: Deps,
  input: { challenge: string; clientIp: string | undefined },
): Promise<ConsumedChallenge> {
  const key = await passkeyChallengeKey(deps.keys, input.challenge);
  if (key === undefined) return { kind: 'none' };
  const window = await throttleWindow(deps, {
    action: 'passkey-verify-ip',
    scope: PASSKEY_THROTTLE_SCOPE,
    subject: ipSubject(input.clientIp),
  });
  const reply = await runScript(deps.redis.atMostOnce, CONSUME_PASSKEY_CHALLENGE, {
    keys: { challenge: key, counter: window.key },
    args: { windowTtl: window.ttlSeconds, limit: window.limit },
  });
  const [kind, raw] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (kind === 'limited') return { kind: 'rate-limited', retryAfterSeconds: retryAfter(raw, window.ttlSeconds) };
  const value = kind === 'value' ? decodeJson(passkeyChallengeSchema, raw) : undefined;
  return value === undefined ? { kind: 'none' } : { kind: 'consumed', challenge: value };
}

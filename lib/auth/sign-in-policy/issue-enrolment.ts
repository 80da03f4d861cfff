// signInPolicy.issueEnrolment: after a first step the policy accepts, for a member without the second factor it
// requires: one record in Redis, and a token shown once that can only enrol a factor and then open the session.
import { uuidv7 } from 'uuidv7';
import { sha256Hex } from '../../crypto/index.ts';
import { encodeJson, redisCall } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { enrolmentRecord, MFA_ENROLMENT_TTL_SECONDS } from '../../keys/index.ts';
import { issueEnrolmentToken } from './enrolment-token.ts';

export interface IssueEnrolmentInput {
  userId: string;
  organizationId: string;
  email: string;
  /** users.credential_epoch as the first step read it: the session opens only while it still holds. */
  credentialEpoch: number;
  /** Set when the first step was an OpenID provider's sign-in: the session then opens as `oidc+totp`. */
  providerId?: string;
  correlationId: string;
}

export interface IssuedEnrolment {
  status: 'mfa-enrolment-required';
  enrolmentToken: string;
  expiresInSeconds: number;
}

/** One `SET … EX`; Redis unreachable throws (503): no token, and no session either. */
export async function issueEnrolment(deps: Deps, input: IssueEnrolmentInput): Promise<IssuedEnrolment> {
  const enrolmentId = uuidv7();
  const enrolmentToken = issueEnrolmentToken(input.userId, enrolmentId);
  const nowMs = deps.clock.now();
  const value = encodeJson(enrolmentRecord, {
    enrolmentId,
    userId: input.userId,
    organizationId: input.organizationId,
    email: input.email,
    credentialEpoch: input.credentialEpoch,
    firstStep: input.providerId === undefined ? 'password' : 'oidc',
    ...(input.providerId !== undefined ? { providerId: input.providerId } : {}),
    verifier: await sha256Hex(enrolmentToken),
    createdAtUtc: new Date(nowMs).toISOString(),
    expiresAtUtc: new Date(nowMs + MFA_ENROLMENT_TTL_SECONDS * 1000).toISOString(),
    correlationId: input.correlationId,
  });
  const key = deps.keys.mfaEnrolment(input.userId, enrolmentId);
  // retrySafe: the same SET twice is one; a late landing leaves a record nobody holds the token of, for 10 minutes.
  await redisCall('signInPolicy.issueEnrolment', () => deps.redis.retrySafe.set(key, value, { ex: MFA_ENROLMENT_TTL_SECONDS }));
  return { status: 'mfa-enrolment-required', enrolmentToken, expiresInSeconds: MFA_ENROLMENT_TTL_SECONDS };
}

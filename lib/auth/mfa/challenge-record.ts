// The two values a password step leaves for the MFA step (registry rows mfaChallenge and authSessionState), as zod schemas.
import * as z from 'zod';

const HEX64 = /^[0-9a-f]{64}$/;

/** The challenge: whose it is, the SHA-256 of its token, and how many wrong codes it still takes. */
export const challengeRecord = z.strictObject({
  challengeId: z.uuid(),
  userId: z.uuid(),
  verifier: z.string().regex(HEX64),
  createdAtUtc: z.iso.datetime(),
  expiresAtUtc: z.iso.datetime(),
  attemptsLeft: z.number().int().min(0),
  correlationId: z.string().min(1).max(128),
});
export type ChallengeRecord = z.infer<typeof challengeRecord>;

/** The half-finished login: what the session will be opened for once the code is right. */
export const sessionStateRecord = z.strictObject({
  sessionStateId: z.uuid(),
  organizationId: z.uuid(),
  email: z.string().min(3).max(254),
  createdAtUtc: z.iso.datetime(),
  expiresAtUtc: z.iso.datetime(),
  correlationId: z.string().min(1).max(128),
});
export type SessionStateRecord = z.infer<typeof sessionStateRecord>;

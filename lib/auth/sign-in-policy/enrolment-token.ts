// The enrolment token: it names its own record (user and enrolment id) plus 32 random bytes; only its SHA-256 is
// stored. Its own prefix, and not a JWT: no bearer check anywhere takes it for an access token.
import { idPairToken } from '../../crypto/index.ts';

const token = idPairToken('rse_');

export function issueEnrolmentToken(userId: string, enrolmentId: string): string {
  return token.issue(userId, enrolmentId);
}

/** The ids a token points at, or undefined for anything that is not a well-formed token. */
export function readEnrolmentToken(value: string): { userId: string; enrolmentId: string } | undefined {
  const ids = token.read(value);
  return ids === undefined ? undefined : { userId: ids[0], enrolmentId: ids[1] };
}

// The MFA challenge token: it names its own challenge (user and challenge id) plus 32 random bytes; only its SHA-256 is stored.
import { idPairToken } from '../../crypto/index.ts';

const token = idPairToken('rsm_');

export function issueChallengeToken(userId: string, challengeId: string): string {
  return token.issue(userId, challengeId);
}

/** The ids a token points at, or undefined for anything that is not a well-formed token. */
export function readChallengeToken(value: string): { userId: string; challengeId: string } | undefined {
  const ids = token.read(value);
  return ids === undefined ? undefined : { userId: ids[0], challengeId: ids[1] };
}

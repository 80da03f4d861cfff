// The invitation token: it names its own object (organisation and invite id) plus 32 random bytes; only its SHA-256 is stored.
import { idPairToken } from '../../crypto/index.ts';

const token = idPairToken('rsi_');

export function issueInviteToken(organizationId: string, inviteId: string): string {
  return token.issue(organizationId, inviteId);
}

/** The ids a token points at, or undefined for anything that is not a well-formed token. */
export function readInviteToken(value: string): { organizationId: string; inviteId: string } | undefined {
  const ids = token.read(value);
  return ids === undefined ? undefined : { organizationId: ids[0], inviteId: ids[1] };
}

// The revocation denylist: fail-closed read, fail-open write, and the scheduled repair of lost entries (docs/design/failure-semantics.md#failure-semantics).
export { isRevoked, isSessionRevoked } from './is-revoked.ts';
export { revokeSession } from './revoke-session.ts';
export { revokeSessions } from './revoke-sessions.ts';
export { revokeToken } from './revoke-token.ts';
export { parseRevocationSeq, REVOCATION_SEQ_NOW, revocationSeqAfter } from './revocation-seq.ts';
export { denylistRepairTask } from './repair-denylist.ts';

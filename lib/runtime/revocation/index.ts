// The revocation denylist: fail-closed read, fail-open write (docs/design.md#failure-semantics).
export { isRevoked } from './is-revoked.ts';
export { revokeSession } from './revoke-session.ts';

// The revocation denylist: fail-closed read, fail-open write (DESIGN.md §5).
export { isRevoked } from './is-revoked.ts';
export { revokeSession } from './revoke-session.ts';

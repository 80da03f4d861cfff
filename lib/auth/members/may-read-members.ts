// Whether a caller the admin check let in may see who the members are (their emails): what GET …/members would let it.
import type { Authentication } from '../authentication.ts';

/** A person is an OrganizationAdmin once authorizeOrgAdmin passed; a key only with `members:read` (docs/design/api-keys.md#scopes). */
export function mayReadMembers(auth: Authentication): boolean {
  return auth.apiKey === undefined || auth.apiKey.scopes.includes('members:read');
}

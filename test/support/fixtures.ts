// The dev/test secrets every test harness configures the app with, and the fixtures it writes into PostgreSQL.
import { seedOrganization as seedOrganizationWith, type SeededOrganization, type SqlRunner } from '../../local/stack/fixtures.ts';

export { newInvitee } from '../../local/stack/fixtures.ts';

export const TEST_JWT_SECRET = 'test-only-hs256-secret-0123456789abcdef';
export const TEST_INDEX_HASH_KEY = 'test-only-index-hash-key-0123456789abcdef';

/** A new organisation with one location and an OrganizationAdmin whose token is signed with the test secret. */
export function seedOrganization(db: SqlRunner): Promise<SeededOrganization> {
  return seedOrganizationWith(db, TEST_JWT_SECRET);
}

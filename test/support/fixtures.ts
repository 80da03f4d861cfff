// The dev/test secrets every test harness configures the app with, and the fixtures it writes into PostgreSQL.
import { seedOrganization as seedOrganizationWith, type SeededOrganization, type SqlRunner } from '../../local/stack/fixtures.ts';

export { newInvitee } from '../../local/stack/fixtures.ts';

export const TEST_JWT_SECRET = 'test-only-hs256-secret-0123456789abcdef';
export const TEST_INDEX_HASH_KEY = 'test-only-index-hash-key-0123456789abcdef';
/** The secret box's key (32 bytes, base64) and the rotation webhook's secret, test-only. */
export const TEST_SECRETS_KEYS = `test1:${btoa('test-only-secret-box-key-32bytes')}`;
export const TEST_WEBHOOK_SECRET = `whsec_${btoa('test-only-webhook-secret-24b')}`;
/** The passkeys' relying party every test app is configured with (test/support/passkey-authenticator.ts signs for it). */
export const TEST_PASSKEY_RP_ID = 'runstate.test';
export const TEST_PASSKEY_ORIGIN = 'https://app.runstate.test';

/** A new organisation with one location and an OrganizationAdmin whose token is signed with the test secret. */
export function seedOrganization(db: SqlRunner): Promise<SeededOrganization> {
  return seedOrganizationWith(db, TEST_JWT_SECRET);
}
export { setPassword } from '../../local/stack/fixtures.ts';

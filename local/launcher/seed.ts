// Seeds the demo tenant (idempotent, fixed ids) and mints the bearer tokens `npm start` prints for trying the API.
import { mintToken } from '../stack/tokens.ts';
import { seedDemoTenantNames } from './seed-tenant.ts';

/** Anything with pg's `query` shape: pg.Client, or a Neon Client. */
export interface SeedClient {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(text: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

export interface SeedResult {
  organizationId: string;
  locationId: string;
  /** `password`: the demo admin's sign-in password, only in APP_ENV=dev (local/launcher/seed-password.ts). */
  admin: { userId: string; email: string; token: string; password?: string };
  /** What the resolve route finds it by before sign-in (local/launcher/seed-tenant.ts). */
  tenant: { slug: string; domain: string | undefined };
}

export interface DemoTokenOptions {
  /** Only needed when the deployment also checks AUTH_ISSUER / AUTH_AUDIENCE on HS256 tokens. */
  issuer?: string;
  audience?: string;
}

/** Fixed ids, so every data folder and every re-run agree on the demo tenant. */
export const DEMO = {
  organizationId: '01900000-0000-7000-8000-00000000d001',
  organizationName: 'Demo Restaurant Group',
  locationId: '01900000-0000-7000-8000-00000000d002',
  locationName: 'Demo Outlet',
  adminUserId: '01900000-0000-7000-8000-00000000d003',
  adminEmail: 'admin@demo.runstate.test',
  adminRoleAssignmentId: '01900000-0000-7000-8000-00000000d004',
  /** Not seeded: accepting the demo invite creates this user from the token's `sub` and `email`. */
  inviteeUserId: '01900000-0000-7000-8000-00000000d005',
  inviteeEmail: 'newcomer@demo.runstate.test',
} as const;

export const DEMO_TOKEN_TTL_SECONDS = 12 * 60 * 60;

/** The id npm start gives its local OpenID provider in OIDC_PROVIDERS. */
export const DEMO_OIDC_PROVIDER_ID = 'local';

export async function seedDemo(client: SeedClient, jwtSecret: string, options: DemoTokenOptions = {}): Promise<SeedResult> {
  await client.query('BEGIN');
  try {
    await client.query('INSERT INTO organizations (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
      DEMO.organizationId,
      DEMO.organizationName,
    ]);
    await client.query('INSERT INTO locations (id, organization_id, name) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [
      DEMO.locationId,
      DEMO.organizationId,
      DEMO.locationName,
    ]);
    await client.query('INSERT INTO users (id, email) VALUES ($1, $2) ON CONFLICT DO NOTHING', [DEMO.adminUserId, DEMO.adminEmail]);
    // The email may already belong to another id (made by hand); the role goes to whoever owns it.
    const admin = await client.query('SELECT id FROM users WHERE email = $1', [DEMO.adminEmail]);
    const adminUserId = String(admin.rows[0]?.id ?? DEMO.adminUserId);
    await client.query(
      `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code)
       VALUES ($1, $2, $3, NULL, 'OrganizationAdmin') ON CONFLICT DO NOTHING`,
      [DEMO.adminRoleAssignmentId, adminUserId, DEMO.organizationId],
    );
    const names = await seedDemoTenantNames(client, DEMO.organizationId);
    // The demo tenant lists the local OpenID provider (local/oidc/demo.ts), so its start link works.
    await client.query(`INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
      DEMO.organizationId,
      DEMO_OIDC_PROVIDER_ID,
    ]);
    await client.query('COMMIT');
    const token = await demoToken(jwtSecret, adminUserId, DEMO.adminEmail, options);
    return {
      organizationId: DEMO.organizationId,
      locationId: DEMO.locationId,
      admin: { userId: adminUserId, email: DEMO.adminEmail, token },
      tenant: names,
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The demo invitee: the user that already holds the email after an earlier accept, else the fixed not-yet-known id. */
export async function demoInvitee(
  client: SeedClient,
  jwtSecret: string,
  options: DemoTokenOptions = {},
): Promise<{ userId: string; email: string; token: string }> {
  const known = await client.query('SELECT id FROM users WHERE email = $1', [DEMO.inviteeEmail]);
  const userId = String(known.rows[0]?.id ?? DEMO.inviteeUserId);
  return { userId, email: DEMO.inviteeEmail, token: await demoToken(jwtSecret, userId, DEMO.inviteeEmail, options) };
}

function demoToken(secret: string, userId: string, email: string, options: DemoTokenOptions): Promise<string> {
  return mintToken(secret, { userId, email, expiresInSeconds: DEMO_TOKEN_TTL_SECONDS, ...options });
}

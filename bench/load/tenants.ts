// The load mode's tenants written in bulk SQL: organisations with a slug and a location, members with one password.
import { uuidv7 } from 'uuidv7';
import { hashPassword } from '../../lib/auth/password.ts';
import { BENCH_TOKEN_TTL_SECONDS, type BenchStack } from '../stack.ts';

export interface LoadOrganization {
  organizationId: string;
  locationId: string;
  slug: string;
  adminId: string;
  /** The OrganizationAdmin's bearer token (minted, as the other benches' are), for the /orgs routes. */
  adminToken: string;
}

export interface LoadMember {
  userId: string;
  organizationId: string;
  email: string;
}

export interface LoadTenants {
  organizations: LoadOrganization[];
  /** Every user, the admins first in each organisation; all sign in with `password`. */
  members: LoadMember[];
  password: string;
}

/**
 * `organizations` tenants of `usersPerOrganization` members each (one OrganizationAdmin, the rest Viewers), in four
 * statements straight into PostgreSQL, outside the proxies. Every member gets the same stored hash: one derivation
 * instead of ten thousand, and each sign-in still verifies it with the full KDF.
 */
export async function seedTenants(stack: BenchStack, organizations: number, usersPerOrganization: number): Promise<LoadTenants> {
  const password = `load-${uuidv7()}`;
  const passwordHash = await hashPassword(password);
  const orgs = Array.from({ length: organizations }, (_, i) => ({
    organizationId: uuidv7(),
    locationId: uuidv7(),
    slug: `load-${i}-${uuidv7().slice(-8)}`,
  }));
  const members: LoadMember[] = orgs.flatMap((org) =>
    Array.from({ length: usersPerOrganization }, () => {
      const userId = uuidv7();
      return { userId, organizationId: org.organizationId, email: `member-${userId.slice(-12)}@example.test` };
    }),
  );
  const ids = <T, K extends keyof T>(rows: T[], field: K) => rows.map((row) => row[field]);
  await stack.db.query(
    `INSERT INTO organizations (id, name, slug) SELECT id, 'Load tenant', slug FROM unnest($1::uuid[], $2::text[]) AS t(id, slug)`,
    [ids(orgs, 'organizationId'), ids(orgs, 'slug')],
  );
  await stack.db.query(
    `INSERT INTO locations (id, organization_id, name) SELECT id, org, 'Main' FROM unnest($1::uuid[], $2::uuid[]) AS t(id, org)`,
    [ids(orgs, 'locationId'), ids(orgs, 'organizationId')],
  );
  await stack.db.query(
    `INSERT INTO users (id, email, password_hash) SELECT id, email, $3 FROM unnest($1::uuid[], $2::text[]) AS t(id, email)`,
    [ids(members, 'userId'), ids(members, 'email'), passwordHash],
  );
  const roles = members.map((_, i) => (i % usersPerOrganization === 0 ? 'OrganizationAdmin' : 'Viewer'));
  await stack.db.query(
    `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code)
     SELECT gen_random_uuid(), u, o, NULL, r FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS t(u, o, r)`,
    [ids(members, 'userId'), ids(members, 'organizationId'), roles],
  );
  const organizationsOut = await Promise.all(
    orgs.map(async (org, i) => {
      const admin = members[i * usersPerOrganization] as LoadMember;
      const adminToken = await stack.token({ userId: admin.userId, email: admin.email, expiresInSeconds: BENCH_TOKEN_TTL_SECONDS });
      return { ...org, adminId: admin.userId, adminToken };
    }),
  );
  return { organizations: organizationsOut, members, password };
}

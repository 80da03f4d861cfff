// Fixtures written straight into PostgreSQL (outside the proxies, so they never show in a count), for tests and the bench.
import { uuidv7 } from 'uuidv7';
import { hashPassword } from '../../lib/auth/password.ts';
import { mintToken } from './tokens.ts';

/** Anything with node-postgres' `query(text, params)`: a pg.Client or pg.Pool. */
export interface SqlRunner {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

export interface SeededOrganization {
  organizationId: string;
  locationId: string;
  adminId: string;
  adminEmail: string;
  adminToken: string;
}

/**
 * A new organisation with one location and an OrganizationAdmin, plus a bearer token for that admin: unbound by default,
 * or with `bound` as sign-in issues it (its `org` claim, and a live session row bound to the organisation).
 */
export async function seedOrganization(
  db: SqlRunner,
  jwtSecret: string,
  options: { name?: string; tokenTtlSeconds?: number; bound?: boolean } = {},
): Promise<SeededOrganization> {
  const organizationId = uuidv7();
  const locationId = uuidv7();
  const adminId = uuidv7();
  const adminEmail = `admin-${adminId.slice(-12)}@example.test`;
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, options.name ?? 'Test org']);
  await db.query('INSERT INTO locations (id, organization_id, name) VALUES ($1, $2, $3)', [locationId, organizationId, 'Main']);
  await db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [adminId, adminEmail]);
  await db.query(
    `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'OrganizationAdmin')`,
    [uuidv7(), adminId, organizationId],
  );
  const sessionId = uuidv7();
  if (options.bound === true) {
    await db.query(
      `INSERT INTO sessions (id, user_id, organization_id, created_at, expires_at, last_seen_at, method)
       VALUES ($1, $2, $3, now(), now() + make_interval(secs => $4), now(), 'password')`,
      [sessionId, adminId, organizationId, (options.tokenTtlSeconds ?? 900) + 3_600],
    );
  }
  const adminToken = await mintToken(jwtSecret, {
    userId: adminId,
    sessionId,
    email: adminEmail,
    ...(options.bound === true ? { organizationId } : {}),
    ...(options.tokenTtlSeconds !== undefined ? { expiresInSeconds: options.tokenTtlSeconds } : {}),
  });
  return { organizationId, locationId, adminId, adminEmail, adminToken };
}

/** A user unknown to PostgreSQL, as an invite recipient would be. */
export function newInvitee(): { userId: string; email: string } {
  const userId = uuidv7();
  return { userId, email: `invitee-${userId.slice(-12)}@example.test` };
}

/** Sets a user's password as sign-in stores it (the same KDF), for tests, the bench and the demo seed. */
export async function setPassword(db: SqlRunner, userId: string, password: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, await hashPassword(password)]);
}

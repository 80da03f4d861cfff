// Members for the member-route tests: users and role assignments written straight into PostgreSQL, and the routes.
import { uuidv7 } from 'uuidv7';
import { newInvitee, type TestStack } from './stack.ts';

export type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
export type RoleCode = 'OrganizationAdmin' | 'Accountant' | 'Viewer';

export interface ListedMember {
  userId: string;
  email: string;
  roleCode: RoleCode;
  locationId: string | null;
  joinedAt: string;
}

export function memberFixtures(stack: TestStack) {
  async function grant(userId: string, organizationId: string, roleCode: RoleCode = 'Viewer', locationId: string | null = null) {
    await stack.db.query(
      'INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, $4, $5)',
      [uuidv7(), userId, organizationId, locationId, roleCode],
    );
  }

  /**
   * A new user holding `roleCode` in the organisation (at `locationId`, or organisation-wide), with a token of their own;
   * `email` instead of the fixtures' one (which holds a tail of the random id).
   */
  async function addMember(organizationId: string, roleCode: RoleCode = 'Viewer', locationId: string | null = null, email?: string) {
    const user = { ...newInvitee(), ...(email === undefined ? {} : { email }) };
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [user.userId, user.email]);
    await grant(user.userId, organizationId, roleCode, locationId);
    return { ...user, token: await stack.token({ userId: user.userId, email: user.email }) };
  }

  async function addOutlet(organizationId: string): Promise<string> {
    const locationId = uuidv7();
    await stack.db.query('INSERT INTO locations (id, organization_id, name) VALUES ($1, $2, $3)', [locationId, organizationId, 'Outlet']);
    return locationId;
  }

  const list = (organizationId: string, token: string, query = '') =>
    stack.request('GET', `/orgs/${organizationId}/members${query}`, { token });
  const changeRole = (organizationId: string, userId: string, token: string, body: Record<string, unknown>) =>
    stack.request('PATCH', `/orgs/${organizationId}/members/${userId}`, { token, body });
  const remove = (organizationId: string, userId: string, token: string) =>
    stack.request('DELETE', `/orgs/${organizationId}/members/${userId}`, { token });

  /** The user's roles in the organisation, as PostgreSQL holds them. */
  async function rolesOf(userId: string, organizationId: string): Promise<Array<{ role_code: string; location_id: string | null }>> {
    const result = await stack.db.query(
      'SELECT role_code, location_id FROM role_assignments WHERE user_id = $1 AND organization_id = $2 ORDER BY location_id NULLS FIRST',
      [userId, organizationId],
    );
    return result.rows as Array<{ role_code: string; location_id: string | null }>;
  }

  async function memberAudit(organizationId: string) {
    const result = await stack.db.query(
      `SELECT action, actor_user_id, organization_id, location_id, target_id, details FROM audit_events
        WHERE organization_id = $1 AND action LIKE 'member.%' ORDER BY occurred_at, id`,
      [organizationId],
    );
    return result.rows as Array<{
      action: string;
      actor_user_id: string;
      organization_id: string;
      location_id: string | null;
      target_id: string;
      details: Record<string, unknown>;
    }>;
  }

  return { grant, addMember, addOutlet, list, changeRole, remove, rolesOf, memberAudit };
}

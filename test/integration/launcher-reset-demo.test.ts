// npm start's put-back of the demo tenant (local/launcher/reset-demo.ts), in-process against the real app: what the
// walkthrough changed is undone, audited as the demo admin; nothing else, in the demo organisation or another, is touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, seedDemo } from '../../local/launcher/seed.ts';
import { describeDemoReset, resetDemoWalkthrough } from '../../local/launcher/reset-demo.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import type { Deps } from '../../lib/deps.ts';
import { TEST_JWT_SECRET } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { seedEndpoint } from '../support/webhook-endpoints.ts';

let scratch: ScratchDatabase;
let stack: TestStack;
let dev: Deps;

beforeAll(async () => {
  // A database of its own: the demo tenant has fixed ids, which launcher.test.ts's npm start seeds in the shared one.
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  stack = await startStack({ databaseUrl: scratch.url });
  await seedDemo(stack.db, TEST_JWT_SECRET);
  dev = { ...stack.deps, config: { ...stack.deps.config, appEnv: 'dev' } };
});

afterAll(async () => {
  await stack?.close();
  await scratch?.drop();
});

const demoIds = { adminUserId: DEMO.adminUserId, inviteeUserId: DEMO.inviteeUserId };

async function asDemoAdmin(method: string, path: string, body?: unknown) {
  const token = await stack.token({ userId: DEMO.adminUserId, email: DEMO.adminEmail });
  const response = await stack.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function invite(email: string, roleCode: string, locationId?: string) {
  const created = await asDemoAdmin('POST', `/orgs/${DEMO.organizationId}/invites`, {
    email,
    roleCode,
    ...(locationId ? { locationId } : {}),
  });
  expect(created.status).toBe(201);
  return created.json as { invite: { inviteId: string }; token: string };
}

async function activeInviteIds(): Promise<string[]> {
  const listed = await asDemoAdmin('GET', `/orgs/${DEMO.organizationId}/invites`);
  return (listed.json.invites as Array<{ inviteId: string }>).map((i) => i.inviteId).sort();
}

async function rolesOf(email: string, organizationId: string): Promise<string[]> {
  const { rows } = await stack.db.query(
    'SELECT r.role_code FROM role_assignments r JOIN users u ON u.id = r.user_id WHERE u.email = $1 AND r.organization_id = $2',
    [email, organizationId],
  );
  return rows.map((row: { role_code: string }) => row.role_code).sort();
}

async function endpointUrls(organizationId: string): Promise<string[]> {
  const { rows } = await stack.db.query('SELECT url FROM webhook_endpoints WHERE organization_id = $1 ORDER BY url', [organizationId]);
  return rows.map((row: { url: string }) => row.url);
}

describe('npm start putting the demo tenant back for the walkthrough', () => {
  it('undoes the newcomer membership, their active invites and the endpoints at the receiver, audited, and only those', async () => {
    // A clean slate: this test's Redis is shared, and an earlier run may have left invites of the demo organisation.
    await resetDemoWalkthrough(dev, demoIds);
    const since = new Date();

    // What a walkthrough leaves: the newcomer a member (by invite and accept), an endpoint at the receiver made by the
    // demo admin; and a second, unaccepted invite for them, as a walkthrough stopped half-way leaves.
    const accepted = await invite(DEMO.inviteeEmail, 'Accountant', DEMO.locationId);
    const newcomerToken = await stack.token({ userId: DEMO.inviteeUserId, email: DEMO.inviteeEmail });
    const accept = await stack.request('POST', '/invites/accept', { token: newcomerToken, body: { token: accepted.token } });
    expect(accept.status).toBe(200);
    const pending = await invite(DEMO.inviteeEmail, 'Viewer');
    const receiverEndpoint = await seedEndpoint(stack, DEMO.organizationId, 'http://127.0.0.1:41234/hooks');
    // Not the walkthrough's: a member who joined otherwise, an invite for someone else, an endpoint elsewhere, one at a
    // receiver-shaped address made by someone else, and the newcomer's role in another organisation.
    const bystander = await invite('bystander@demo.runstate.test', 'Viewer');
    await stack.db.query(`INSERT INTO users (id, email) VALUES ('01900000-0000-7000-8000-0000000000b1', 'kept@demo.runstate.test')`);
    await stack.db.query(
      `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code)
       VALUES ('01900000-0000-7000-8000-0000000000b2', '01900000-0000-7000-8000-0000000000b1', $1, NULL, 'Viewer')`,
      [DEMO.organizationId],
    );
    const elsewhere = await seedEndpoint(stack, DEMO.organizationId, 'https://hooks.example.test/runstate');
    await seedEndpoint(stack, DEMO.organizationId, 'http://127.0.0.1:41235/hooks');
    await stack.db.query('UPDATE webhook_endpoints SET created_by = $1 WHERE id = ANY($2::uuid[])', [
      DEMO.adminUserId,
      [receiverEndpoint.endpointId, elsewhere.endpointId],
    ]);
    const other = await stack.seedOrganization();
    await stack.db.query(
      `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ('01900000-0000-7000-8000-0000000000b3', $1, $2, NULL, 'Viewer')`,
      [DEMO.inviteeUserId, other.organizationId],
    );
    await seedEndpoint(stack, other.organizationId, 'http://127.0.0.1:41234/hooks');
    await stack.db.query('UPDATE webhook_endpoints SET created_by = $1 WHERE organization_id = $2', [
      DEMO.adminUserId,
      other.organizationId,
    ]);

    // Not dev: nothing is touched.
    expect(await resetDemoWalkthrough(stack.deps, demoIds)).toEqual({ reset: false });
    expect(await rolesOf(DEMO.inviteeEmail, DEMO.organizationId)).toEqual(['Accountant']);

    const outcome = await resetDemoWalkthrough(dev, demoIds);
    expect(outcome).toEqual({ reset: true, endpointsDeleted: 1, invitesCancelled: 1, memberRemoved: true });
    expect(describeDemoReset(outcome)).toBe(
      'put the demo tenant back for the walkthrough (audited, as the demo admin): removed newcomer@demo.runstate.test from the ' +
        'demo organisation; cancelled 1 active invite for them; deleted 1 webhook endpoint an earlier walkthrough made',
    );
    expect(await rolesOf(DEMO.inviteeEmail, DEMO.organizationId)).toEqual([]);
    expect(await activeInviteIds()).toEqual([bystander.invite.inviteId]);
    expect(await endpointUrls(DEMO.organizationId)).toEqual(['http://127.0.0.1:41235/hooks', 'https://hooks.example.test/runstate']);
    expect(await rolesOf('kept@demo.runstate.test', DEMO.organizationId)).toEqual(['Viewer']);
    expect(await rolesOf(DEMO.inviteeEmail, other.organizationId)).toEqual(['Viewer']);
    expect(await rolesOf(DEMO.adminEmail, DEMO.organizationId)).toEqual(['OrganizationAdmin']);
    expect(await endpointUrls(other.organizationId)).toEqual(['http://127.0.0.1:41234/hooks']);
    // Each undo is audited as the demo admin, as the routes audit them.
    const { rows } = await stack.db.query(
      `SELECT action, target_id FROM audit_events WHERE organization_id = $1 AND actor_user_id = $2
          AND action IN ('member.removed', 'invite.cancelled', 'webhook.endpoint_deleted') AND occurred_at >= $3 ORDER BY action`,
      [DEMO.organizationId, DEMO.adminUserId, since],
    );
    expect(rows).toEqual([
      { action: 'invite.cancelled', target_id: pending.invite.inviteId },
      { action: 'member.removed', target_id: DEMO.inviteeUserId },
      { action: 'webhook.endpoint_deleted', target_id: receiverEndpoint.endpointId },
    ]);

    // Again: nothing left to put back, nothing said.
    const again = await resetDemoWalkthrough(dev, demoIds);
    expect(again).toEqual({ reset: true, endpointsDeleted: 0, invitesCancelled: 0, memberRemoved: false });
    expect(describeDemoReset(again)).toBeUndefined();
  }, 60_000);
});

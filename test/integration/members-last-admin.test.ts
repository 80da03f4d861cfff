// The last organisation-wide OrganizationAdmin stays one: demoting or removing them is 409 LAST_ADMIN with nothing
// changed or audited, and two admins demoting (or removing) each other at the same moment never leave zero: exactly
// one of them wins, whichever PostgreSQL serialises first (migrations/0013_members.sql).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { memberFixtures, type Org } from '../support/members.ts';
import { errorCode } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  stack = await startStack();
  m = memberFixtures(stack);
});
afterAll(async () => stack?.close());

async function orgWideAdmins(organizationId: string): Promise<string[]> {
  const result = await stack.db.query(
    `SELECT user_id FROM role_assignments WHERE organization_id = $1 AND location_id IS NULL AND role_code = 'OrganizationAdmin'`,
    [organizationId],
  );
  return result.rows.map((row: { user_id: string }) => row.user_id);
}

async function expectLastAdmin(response: Response): Promise<void> {
  expect([response.status, await errorCode(response)]).toEqual([409, 'LAST_ADMIN']);
}

describe('the last organisation-wide OrganizationAdmin', () => {
  it('cannot be demoted or removed, by themselves or anyone; nothing changes and nothing is audited', async () => {
    const org = await stack.seedOrganization();
    const outlet = await m.addOutlet(org.organizationId);
    // An Outlet's OrganizationAdmin does not count: it cannot administer the organisation.
    const outletAdmin = await m.addMember(org.organizationId, 'OrganizationAdmin', outlet);
    for (const roleCode of ['Accountant', 'Viewer']) {
      await expectLastAdmin(await m.changeRole(org.organizationId, org.adminId, org.adminToken, { roleCode }));
      await expectLastAdmin(await m.changeRole(org.organizationId, org.adminId, org.adminToken, { roleCode, locationId: null }));
    }
    await expectLastAdmin(await m.remove(org.organizationId, org.adminId, org.adminToken));
    expect(await orgWideAdmins(org.organizationId)).toEqual([org.adminId]);
    expect(await m.memberAudit(org.organizationId)).toEqual([]);
    // The Outlet admin's own role is theirs to lose: it is not the organisation's last admin.
    expect(
      (await m.changeRole(org.organizationId, outletAdmin.userId, org.adminToken, { roleCode: 'Viewer', locationId: outlet })).status,
    ).toBe(200);
    // Keeping the role is no demotion.
    expect((await m.changeRole(org.organizationId, org.adminId, org.adminToken, { roleCode: 'OrganizationAdmin' })).status).toBe(200);
  });

  it('can step down once another admin exists, and the new last one is then protected', async () => {
    const org = await stack.seedOrganization();
    const second = await m.addMember(org.organizationId, 'OrganizationAdmin');
    expect((await m.changeRole(org.organizationId, org.adminId, org.adminToken, { roleCode: 'Viewer' })).status).toBe(200);
    await expectLastAdmin(await m.changeRole(org.organizationId, second.userId, second.token, { roleCode: 'Viewer' }));
    await expectLastAdmin(await m.remove(org.organizationId, second.userId, second.token));
    expect(await orgWideAdmins(org.organizationId)).toEqual([second.userId]);
  });
});

describe('two admins acting on each other at once', () => {
  const demote = (organizationId: string, target: string, token: string) =>
    m.changeRole(organizationId, target, token, { roleCode: 'Viewer' });
  const remove = (organizationId: string, target: string, token: string) => m.remove(organizationId, target, token);
  type Act = typeof demote;

  /**
   * Holds the organisation's row from outside the app until both changes wait on it, so both have passed their role
   * check and both reach the last-admin check under the lock: the race the lock exists for, every time.
   */
  async function gatedRace(org: Org, acts: Array<() => Promise<Response>>): Promise<Response[]> {
    const gate = new pg.Client({ connectionString: inject('databaseUrl') });
    await gate.connect();
    try {
      await gate.query('BEGIN');
      await gate.query('SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE', [org.organizationId]);
      const pending = acts.map((act) => act());
      await waitUntil(async () => {
        const waiting = await stack.db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND (query LIKE '%members_change_role%' OR query LIKE '%members_remove%')`,
        );
        return waiting.rows[0].n === acts.length;
      });
      await gate.query('COMMIT');
      return await Promise.all(pending);
    } finally {
      await gate.end();
    }
  }

  for (const [name, first, second, successes] of [
    ['demote each other', demote, demote, [200, 409]],
    ['remove each other', remove, remove, [204, 409]],
    ['one demotes while the other removes', demote, remove, [200, 204, 409]],
  ] as Array<[string, Act, Act, number[]]>) {
    it(`${name}, both past the role check and waiting on the lock: exactly one wins, 409 LAST_ADMIN for the other`, async () => {
      for (let round = 0; round < 5; round++) {
        const org = await stack.seedOrganization();
        const other = await m.addMember(org.organizationId, 'OrganizationAdmin');
        const responses = await gatedRace(org, [
          () => first(org.organizationId, other.userId, org.adminToken),
          () => second(org.organizationId, org.adminId, other.token),
        ]);
        const statuses = responses.map((response) => response.status);
        expect(statuses.filter((status) => status === 409)).toHaveLength(1);
        expect(statuses.every((status) => successes.includes(status))).toBe(true);
        const loser = responses.find((response) => response.status === 409)!;
        expect(await errorCode(loser)).toBe('LAST_ADMIN');
        const winner = statuses[0] === 409 ? other.userId : org.adminId;
        expect(await orgWideAdmins(org.organizationId)).toEqual([winner]);
        // One audit row, the winner's; the refusal wrote none.
        expect((await m.memberAudit(org.organizationId)).map((row) => row.actor_user_id)).toEqual([winner]);
      }
    });
  }

  it('sent together without a gate, many times: one succeeds, the other is refused (409, or 403 once demoted), one admin is left', async () => {
    for (let round = 0; round < 12; round++) {
      const org = await stack.seedOrganization();
      const other = await m.addMember(org.organizationId, 'OrganizationAdmin');
      const responses = await Promise.all([
        demote(org.organizationId, other.userId, org.adminToken),
        demote(org.organizationId, org.adminId, other.token),
      ]);
      const outcomes = await Promise.all(
        responses.map(async (response) => [response.status, response.status === 200 ? undefined : await errorCode(response)]),
      );
      expect(outcomes.filter(([status]) => status === 200)).toHaveLength(1);
      expect([
        [409, 'LAST_ADMIN'],
        [403, 'FORBIDDEN'],
      ]).toContainEqual(outcomes.find(([status]) => status !== 200));
      expect(await orgWideAdmins(org.organizationId)).toHaveLength(1);
    }
  });

  it('three admins each demoting the next at once: two succeed and one admin is left', async () => {
    for (let round = 0; round < 5; round++) {
      const org = await stack.seedOrganization();
      const b = await m.addMember(org.organizationId, 'OrganizationAdmin');
      const c = await m.addMember(org.organizationId, 'OrganizationAdmin');
      const responses = await gatedRace(org, [
        () => demote(org.organizationId, b.userId, org.adminToken),
        () => demote(org.organizationId, c.userId, b.token),
        () => demote(org.organizationId, org.adminId, c.token),
      ]);
      expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 409]);
      expect(await orgWideAdmins(org.organizationId)).toHaveLength(1);
    }
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the condition');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

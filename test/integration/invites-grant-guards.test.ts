// What an invite's grant checks beyond the token (migrations/0023_invite_grant_guards.sql): a removed or demoted admin's
// invites do not outlive the role (the removal cancels them; an accept or register of one left over is refused 410
// and cancels it, even while the removal is committing), a suspended organisation grants nothing (403, the invite
// given back for after reactivation), and a deleted one is gone (410).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { OutgoingMessage } from '../../lib/notify/notifier.ts';
import { invites } from '../../lib/runtime/invites/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { memberFixtures, type Org, type RoleCode } from '../support/members.ts';
import { newOperator } from '../support/operators.ts';
import { errorCode } from '../support/sessions.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

const LINK_BASE = 'https://app.runstate.test/invites/accept';
const operator = newOperator('oskar');
const sent: OutgoingMessage[] = [];
let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  stack = await startStack({
    separateRevocationProxy: true,
    env: { INVITE_LINK_BASE: LINK_BASE, OPERATOR_TOKEN_HASHES: operator.entry },
    deps: { notifier: { send: async (message) => void sent.push(message) } },
  });
  m = memberFixtures(stack);
});
afterAll(async () => stack?.close());

type Person = ReturnType<typeof newInvitee>;
interface Made {
  inviteId: string;
  token: string;
  person: Person;
}

let ipCounter = 0;
const freshIp = () => `127.6.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

/** An invite created through the API by the holder of `adminToken`; emailed ones read the token from the message. */
async function invite(org: Org, adminToken: string, delivery: 'email' | 'none', roleCode: RoleCode = 'Viewer'): Promise<Made> {
  const person = newInvitee();
  const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: adminToken,
    body: { email: person.email, roleCode, delivery },
  });
  expect(response.status).toBe(201);
  const body = (await response.json()) as { invite: { inviteId: string }; token?: string };
  const token = delivery === 'none' ? body.token : /#token=(\S+)/.exec(sent.filter((s) => s.to === person.email).at(-1)?.text ?? '')?.[1];
  expect(token).toBeDefined();
  return { inviteId: body.invite.inviteId, token: token!, person };
}

async function accept(made: Made): Promise<Response> {
  const bearer = await stack.token({ userId: made.person.userId, email: made.person.email });
  return stack.request('POST', '/invites/accept', { token: bearer, body: { token: made.token } });
}

const register = (made: Made) =>
  stack.request('POST', '/invites/register', {
    body: { token: made.token, password: `a-password-${made.inviteId}` },
    headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
  });

async function expectCode(response: Response, status: number, code: string): Promise<void> {
  expect([response.status, await errorCode(response)]).toEqual([status, code]);
}

async function activeInviteIds(org: Org): Promise<string[]> {
  const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
  expect(response.status).toBe(200);
  return ((await response.json()) as { invites: Array<{ inviteId: string }> }).invites.map((i) => i.inviteId).sort();
}

interface HistoryEvent {
  action: string;
  actorUserId: string | null;
  inviteId: string | null;
  reason: string | null;
}
/** The invite's events in the history, oldest first. */
async function historyOf(org: Org, inviteId: string): Promise<Array<Omit<HistoryEvent, 'inviteId'>>> {
  const response = await stack.request('GET', `/orgs/${org.organizationId}/invites/history?limit=100`, { token: org.adminToken });
  expect(response.status).toBe(200);
  const { events } = (await response.json()) as { events: HistoryEvent[] };
  return events
    .filter((event) => event.inviteId === inviteId)
    .reverse()
    .map(({ action, actorUserId, reason }) => ({ action, actorUserId, reason }));
}

async function outcomeOf(inviteId: string): Promise<string | undefined> {
  const rows = await stack.db.query('SELECT outcome FROM invite_outcomes WHERE invite_id = $1', [inviteId]);
  return (rows.rows[0] as { outcome: string } | undefined)?.outcome;
}

async function accountsOf(email: string): Promise<number> {
  return (await stack.db.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [email])).rows[0].n as number;
}

const objectExists = (org: Org, inviteId: string) => stack.redis.exists(stack.deps.keys.inviteObject(org.organizationId, inviteId));

const asOperator = (path: string, body?: unknown) =>
  stack.request('POST', path, { headers: { authorization: `Bearer ${operator.secret}` }, ...(body !== undefined ? { body } : {}) });

describe("a removed admin's invites", () => {
  it('are cancelled by the removal, audited with the reason; their tokens are refused 410 at register and accept', async () => {
    const org = await stack.seedOrganization();
    const admin = await m.addMember(org.organizationId, 'OrganizationAdmin');
    // The admin emails themselves an OrganizationAdmin invite at another address before they go.
    const emailed = await invite(org, admin.token, 'email', 'OrganizationAdmin');
    const shown = await invite(org, admin.token, 'none', 'OrganizationAdmin');
    const others = await invite(org, org.adminToken, 'none');
    expect(await activeInviteIds(org)).toEqual([emailed.inviteId, shown.inviteId, others.inviteId].sort());

    expect((await m.remove(org.organizationId, admin.userId, org.adminToken)).status).toBe(204);

    expect(await activeInviteIds(org)).toEqual([others.inviteId]);
    for (const made of [emailed, shown]) {
      expect(await historyOf(org, made.inviteId)).toEqual([
        { action: 'invite.created', actorUserId: admin.userId, reason: null },
        { action: 'invite.cancelled', actorUserId: org.adminId, reason: 'member-removed' },
      ]);
      expect(await outcomeOf(made.inviteId)).toBe('cancelled');
    }
    await expectCode(await register(emailed), 410, 'INVITE_INVALID');
    await expectCode(await accept(emailed), 410, 'INVITE_INVALID');
    await expectCode(await accept(shown), 410, 'INVITE_INVALID');
    expect(await accountsOf(emailed.person.email)).toBe(0);
    expect(await m.rolesOf(shown.person.userId, org.organizationId)).toEqual([]);
    // Refused, and nothing written twice.
    for (const made of [emailed, shown]) expect((await historyOf(org, made.inviteId)).map((e) => e.action)).toHaveLength(2);
    // The other admin's invite is untouched.
    expect((await accept(others)).status).toBe(200);
  });

  it("left in Redis (the removal's Redis step failed) are refused 410 at register and accept, and cancelled there", async () => {
    const org = await stack.seedOrganization();
    const admin = await m.addMember(org.organizationId, 'OrganizationAdmin');
    const emailed = await invite(org, admin.token, 'email', 'OrganizationAdmin');
    const shown = await invite(org, admin.token, 'none', 'OrganizationAdmin');
    const before = stack.logs.length;
    stack.redisProxy.faults.set({ refuse: true });
    let removed: Response;
    try {
      removed = await m.remove(org.organizationId, admin.userId, org.adminToken);
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(removed.status).toBe(204);
    expect(stack.logs.slice(before).some((line) => line.includes('"event":"invite_cancel_deferred"'))).toBe(true);
    expect(await activeInviteIds(org)).toEqual([emailed.inviteId, shown.inviteId].sort());

    await expectCode(await register(emailed), 410, 'INVITE_INVALID');
    await expectCode(await accept(shown), 410, 'INVITE_INVALID');
    expect(await accountsOf(emailed.person.email)).toBe(0);
    expect(await m.rolesOf(shown.person.userId, org.organizationId)).toEqual([]);
    // Cancelled by the refusal itself, by no one: the reason names the creator's lost role.
    expect(await activeInviteIds(org)).toEqual([]);
    for (const made of [emailed, shown]) {
      expect(await outcomeOf(made.inviteId)).toBe('cancelled');
      expect((await historyOf(org, made.inviteId)).at(-1)).toEqual({
        action: 'invite.cancelled',
        actorUserId: null,
        reason: 'creator-not-admin',
      });
    }
    // A repeat of either is still 410 and writes nothing more.
    await expectCode(await accept(shown), 410, 'INVITE_INVALID');
    await expectCode(await register(emailed), 410, 'INVITE_INVALID');
    for (const made of [emailed, shown]) expect(await historyOf(org, made.inviteId)).toHaveLength(2);
  });

  it("whose cancellation PostgreSQL could not record are finished by the reconciler, with the removal's reason", async () => {
    const org = await stack.seedOrganization();
    const admin = await m.addMember(org.organizationId, 'OrganizationAdmin');
    const shown = await invite(org, admin.token, 'none');
    // The removal commits; only the cancellations' transaction (the first to write an outcome row) is refused.
    await stack.db.query(`CREATE OR REPLACE FUNCTION test_refuse_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.invite_id = '${shown.inviteId}' THEN RAISE EXCEPTION 'outcome refused by test'; END IF; RETURN NEW; END $$`);
    await stack.db.query(
      'CREATE TRIGGER test_refuse_outcome BEFORE INSERT ON invite_outcomes FOR EACH ROW EXECUTE FUNCTION test_refuse_outcome()',
    );
    try {
      expect((await m.remove(org.organizationId, admin.userId, org.adminToken)).status).toBe(204);
    } finally {
      await stack.db.query('DROP TRIGGER test_refuse_outcome ON invite_outcomes');
      await stack.db.query('DROP FUNCTION test_refuse_outcome()');
    }
    expect(await activeInviteIds(org)).toEqual([]);
    expect(await outcomeOf(shown.inviteId)).toBeUndefined();

    const report = await invites.reconcile(stack.deps, { organizationId: org.organizationId, graceSeconds: -1 });
    expect(report).toMatchObject({ visited: 1, finished: 1, pending: 0 });
    expect(await outcomeOf(shown.inviteId)).toBe('cancelled');
    expect((await historyOf(org, shown.inviteId)).at(-1)).toEqual({
      action: 'invite.cancelled',
      actorUserId: org.adminId,
      reason: 'member-removed',
    });
    await expectCode(await accept(shown), 410, 'INVITE_INVALID');
  });
});

describe("a demoted admin's invites", () => {
  it('are refused 410 at accept and register and cancelled then; promoting the admin again does not revive them', async () => {
    const org = await stack.seedOrganization();
    const admin = await m.addMember(org.organizationId, 'OrganizationAdmin');
    const shown = await invite(org, admin.token, 'none');
    const emailed = await invite(org, admin.token, 'email');
    expect((await m.changeRole(org.organizationId, admin.userId, org.adminToken, { roleCode: 'Viewer' })).status).toBe(200);
    // Demotion cancels nothing by itself: the invites are still listed until a grant meets them.
    expect(await activeInviteIds(org)).toEqual([shown.inviteId, emailed.inviteId].sort());

    await expectCode(await accept(shown), 410, 'INVITE_INVALID');
    await expectCode(await register(emailed), 410, 'INVITE_INVALID');
    expect(await m.rolesOf(shown.person.userId, org.organizationId)).toEqual([]);
    expect(await accountsOf(emailed.person.email)).toBe(0);
    expect(await activeInviteIds(org)).toEqual([]);
    for (const made of [shown, emailed])
      expect((await historyOf(org, made.inviteId)).at(-1)).toEqual({
        action: 'invite.cancelled',
        actorUserId: null,
        reason: 'creator-not-admin',
      });

    expect((await m.changeRole(org.organizationId, admin.userId, org.adminToken, { roleCode: 'OrganizationAdmin' })).status).toBe(200);
    await expectCode(await accept(shown), 410, 'INVITE_INVALID');
    expect(await m.rolesOf(shown.person.userId, org.organizationId)).toEqual([]);
  });

  it("an Outlet's OrganizationAdmin role is not enough: the creator must hold the organisation-wide one", async () => {
    const org = await stack.seedOrganization();
    const admin = await m.addMember(org.organizationId, 'OrganizationAdmin');
    const shown = await invite(org, admin.token, 'none');
    // Demoted organisation-wide, while an admin at one Outlet.
    await m.grant(admin.userId, org.organizationId, 'OrganizationAdmin', org.locationId);
    expect((await m.changeRole(org.organizationId, admin.userId, org.adminToken, { roleCode: 'Viewer' })).status).toBe(200);
    await expectCode(await accept(shown), 410, 'INVITE_INVALID');
  });
});

describe('a grant racing the removal or demotion of its creator', () => {
  /**
   * The removal or demotion runs in a transaction held open from outside, holding the organisation's row as
   * members_remove and members_change_role take it; the accept is sent, and released only once its grant waits on that
   * row: the grant must see the committed change and refuse.
   */
  async function gated(org: Org, change: string, params: unknown[], made: Made): Promise<Response> {
    const gate = new pg.Client({ connectionString: inject('databaseUrl') });
    await gate.connect();
    try {
      await gate.query('BEGIN');
      await gate.query(change, params);
      const pending = accept(made);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const waiting = await stack.db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%invite_assert_grantable%'`,
        );
        if (waiting.rows[0].n === 1) break;
        if (Date.now() > deadline) throw new Error('the grant never waited on the organisation row');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await gate.query('COMMIT');
      return await pending;
    } finally {
      await gate.end();
    }
  }

  it('waits for the removal to commit, then is refused 410 and cancels the invite', async () => {
    const org = await stack.seedOrganization();
    const admin = await m.addMember(org.organizationId, 'OrganizationAdmin');
    const shown = await invite(org, admin.token, 'none', 'OrganizationAdmin');
    const answer = await gated(org, 'SELECT * FROM members_remove($1, $2, now(), 10)', [org.organizationId, admin.userId], shown);
    await expectCode(answer, 410, 'INVITE_INVALID');
    expect(await m.rolesOf(shown.person.userId, org.organizationId)).toEqual([]);
    expect(await outcomeOf(shown.inviteId)).toBe('cancelled');
  });

  it('waits for the demotion to commit, then is refused 410', async () => {
    const org = await stack.seedOrganization();
    const admin = await m.addMember(org.organizationId, 'OrganizationAdmin');
    const shown = await invite(org, admin.token, 'none');
    const answer = await gated(org, "SELECT * FROM members_change_role($1, $2, NULL, 'Viewer')", [org.organizationId, admin.userId], shown);
    await expectCode(answer, 410, 'INVITE_INVALID');
    expect(await m.rolesOf(shown.person.userId, org.organizationId)).toEqual([]);
  });
});

describe('a suspended organisation', () => {
  it('refuses an accept 403 TENANT_SUSPENDED with nothing granted or recorded; the invite is accepted after reactivation', async () => {
    const org = await stack.seedOrganization();
    const shown = await invite(org, org.adminToken, 'none');
    expect((await asOperator(`/ops/tenants/${org.organizationId}/suspend`, { reason: 'overdue invoices' })).status).toBe(200);

    await expectCode(await accept(shown), 403, 'TENANT_SUSPENDED');
    expect(await m.rolesOf(shown.person.userId, org.organizationId)).toEqual([]);
    expect(await outcomeOf(shown.inviteId)).toBeUndefined();
    // Given back whole: the object is live again and the receipt gone.
    expect(await objectExists(org, shown.inviteId)).toBe(1);
    expect(await stack.redis.exists(stack.deps.keys.inviteReceipt(org.organizationId, shown.inviteId))).toBe(0);

    expect((await asOperator(`/ops/tenants/${org.organizationId}/reactivate`)).status).toBe(200);
    expect(await activeInviteIds(org)).toEqual([shown.inviteId]);
    expect((await historyOf(org, shown.inviteId)).map((e) => e.action)).toEqual(['invite.created']);
    expect((await accept(shown)).status).toBe(200);
    expect(await m.rolesOf(shown.person.userId, org.organizationId)).toEqual([{ role_code: 'Viewer', location_id: null }]);
  });

  it('refuses a register 403 TENANT_SUSPENDED before anything is consumed', async () => {
    const org = await stack.seedOrganization();
    const emailed = await invite(org, org.adminToken, 'email');
    expect((await asOperator(`/ops/tenants/${org.organizationId}/suspend`, { reason: 'overdue invoices' })).status).toBe(200);
    await expectCode(await register(emailed), 403, 'TENANT_SUSPENDED');
    expect(await objectExists(org, emailed.inviteId)).toBe(1);
    expect(await accountsOf(emailed.person.email)).toBe(0);
  });
});

describe('a deleted organisation', () => {
  const markDeleted = (org: Org) => stack.db.query(`UPDATE organizations SET state = 'deleted' WHERE id = $1`, [org.organizationId]);

  it('refuses an accept 410 and cancels the invite; nothing is granted', async () => {
    const org = await stack.seedOrganization();
    const shown = await invite(org, org.adminToken, 'none');
    await markDeleted(org);
    await expectCode(await accept(shown), 410, 'INVITE_INVALID');
    expect(await m.rolesOf(shown.person.userId, org.organizationId)).toEqual([]);
    expect(await objectExists(org, shown.inviteId)).toBe(0);
    const audit = await stack.db.query(
      `SELECT actor_user_id, details FROM audit_events WHERE target_id = $1 AND action = 'invite.cancelled'`,
      [shown.inviteId],
    );
    expect(audit.rows).toEqual([{ actor_user_id: null, details: { roleCode: 'Viewer', reason: 'organization-deleted' } }]);
  });

  it('refuses a register 410 before anything is consumed; no account is created', async () => {
    const org = await stack.seedOrganization();
    const emailed = await invite(org, org.adminToken, 'email');
    await markDeleted(org);
    await expectCode(await register(emailed), 410, 'INVITE_INVALID');
    expect(await accountsOf(emailed.person.email)).toBe(0);
    expect(await outcomeOf(emailed.inviteId)).toBeUndefined();
  });
});

// The invite history: every invite.* audit event of the organisation exactly once across its pages, newest first, while
// new ones are written; only the organisation's admins; bad cursors and limits refused; no token or invitee email in any
// answer; an actor's email only while they are a member here and only to a caller who may list the members.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { writeAudit } from '../../lib/pg/audit.ts';
import { memberFixtures } from '../support/members.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

interface HistoryEvent {
  id: string;
  action: string;
  actorUserId: string | null;
  actorEmail: string | null;
  inviteId: string | null;
  outletId: string | null;
  occurredAt: string;
  correlationId: string;
  reason: string | null;
}
interface HistoryPage {
  events: HistoryEvent[];
  nextCursor: string | null;
}

const historyPath = (org: Org, query = '') => `/orgs/${org.organizationId}/invites/history${query}`;

async function createInvite(org: Org, options: { locationId?: string } = {}): Promise<{ inviteId: string; token: string; email: string }> {
  const email = newInvitee().email;
  const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email, roleCode: 'Viewer', ...options },
  });
  expect(response.status).toBe(201);
  const body = (await response.json()) as { invite: { inviteId: string }; token: string };
  return { inviteId: body.invite.inviteId, token: body.token, email };
}

/** The organisation's invite events as PostgreSQL holds them, newest first (the order the history promises). */
async function storedInviteEventIds(org: Org): Promise<string[]> {
  const { rows } = await stack.db.query<{ id: string }>(
    `SELECT id FROM audit_events WHERE organization_id = $1 AND action LIKE 'invite.%' ORDER BY occurred_at DESC, id DESC`,
    [org.organizationId],
  );
  return rows.map((row) => row.id);
}

async function page(org: Org, query: string, token = org.adminToken): Promise<{ text: string; body: HistoryPage }> {
  const response = await stack.request('GET', historyPath(org, query), { token });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { text, body: JSON.parse(text) as HistoryPage };
}

describe('GET /orgs/{orgId}/invites/history', () => {
  it('shows created, cancelled and accepted with actor, invite, outlet, time and correlation id, newest first', async () => {
    const org = await stack.seedOrganization();
    const created = await createInvite(org, { locationId: org.locationId });
    const cancelled = await createInvite(org);
    expect(
      (
        await stack.request('DELETE', `/orgs/${org.organizationId}/invites/${cancelled.inviteId}`, {
          token: org.adminToken,
          headers: { 'x-correlation-id': 'history-cancel-1' },
        })
      ).status,
    ).toBe(204);
    const person = newInvitee();
    const accepting = await createInvite(org);
    const bearer = await stack.token({ userId: person.userId, email: accepting.email });
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token: accepting.token } })).status).toBe(200);
    // Not invite events, and another organisation's: neither is in this history.
    await writeAudit(
      stack.deps.db,
      {
        action: 'syrve.connection_tested',
        actorUserId: org.adminId,
        organizationId: org.organizationId,
        locationId: null,
        targetId: null,
        correlationId: 'other',
      },
      new Date(),
    );
    await createInvite(await stack.seedOrganization());

    const { body } = await page(org, '');
    expect(body.nextCursor).toBeNull();
    expect(body.events.map((event) => [event.action, event.inviteId])).toEqual([
      ['invite.accepted', accepting.inviteId],
      ['invite.created', accepting.inviteId],
      ['invite.cancelled', cancelled.inviteId],
      ['invite.created', cancelled.inviteId],
      ['invite.created', created.inviteId],
    ]);
    const [accepted, , cancel, , first] = body.events;
    expect(accepted).toMatchObject({ actorUserId: person.userId.toLowerCase(), outletId: null });
    expect(cancel).toMatchObject({ actorUserId: org.adminId, correlationId: 'history-cancel-1' });
    expect(first).toMatchObject({ actorUserId: org.adminId, actor: { type: 'user', userId: org.adminId }, outletId: org.locationId });
    expect(first?.actorEmail).toBe(org.adminEmail);
    for (const event of body.events) {
      expect(Object.keys(event).sort()).toEqual([
        'action',
        'actor',
        'actorEmail',
        'actorUserId',
        'correlationId',
        'id',
        'inviteId',
        'occurredAt',
        'outletId',
        'reason',
      ]);
      // An admin's cancel gives no reason: only a cancel no admin asked for does.
      expect(event.reason).toBeNull();
      expect(event.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('returns every event exactly once across pages while new ones are written, ties on the same instant included', async () => {
    const org = await stack.seedOrganization();
    for (let i = 0; i < 12; i += 1) await createInvite(org);
    // Five events at one instant: only the id tells them apart, so the cursor must carry it.
    const instant = new Date();
    for (let i = 0; i < 5; i += 1) {
      await writeAudit(
        stack.deps.db,
        {
          action: 'invite.created',
          actorUserId: org.adminId,
          organizationId: org.organizationId,
          locationId: null,
          targetId: uuidv7(),
          correlationId: `tie-${i}`,
        },
        instant,
      );
    }
    for (let i = 0; i < 6; i += 1) await createInvite(org);
    const before = await storedInviteEventIds(org);
    expect(before).toHaveLength(23);

    let writing = true;
    const writer = (async () => {
      let written = 0;
      while (writing) {
        await createInvite(org);
        written += 1;
      }
      return written;
    })();
    const pages: HistoryEvent[][] = [];
    let cursor: string | null = null;
    do {
      const { body }: { body: HistoryPage } = await page(org, `?limit=4${cursor === null ? '' : `&cursor=${cursor}`}`);
      pages.push(body.events);
      cursor = body.nextCursor;
      // Give the writer room to land events between the pages.
      await new Promise((resolve) => setTimeout(resolve, 20));
    } while (cursor !== null);
    writing = false;
    const written = await writer;

    const seen = pages.flat().map((event) => event.id);
    expect(new Set(seen).size).toBe(seen.length);
    // Everything that existed before the first page, in the stored order; new events only ever on the first page.
    expect(seen.filter((id) => before.includes(id))).toEqual(before);
    expect(
      pages
        .slice(1)
        .flat()
        .filter((event) => !before.includes(event.id)),
    ).toEqual([]);
    expect(pages.every((events) => events.length <= 4)).toBe(true);
    // The writer really ran during the paging (else this proves nothing about concurrency).
    expect(written).toBeGreaterThan(0);
    expect((await storedInviteEventIds(org)).length).toBe(before.length + written);
  });

  it('pages by the default of 50 and at most 100', async () => {
    const org = await stack.seedOrganization();
    const at = new Date();
    for (let i = 0; i < 51; i += 1) {
      await writeAudit(
        stack.deps.db,
        {
          action: 'invite.created',
          actorUserId: org.adminId,
          organizationId: org.organizationId,
          locationId: null,
          targetId: uuidv7(),
          correlationId: `bulk-${i}`,
        },
        new Date(at.getTime() - i),
      );
    }
    const first = await page(org, '');
    expect(first.body.events).toHaveLength(50);
    const rest = await page(org, `?cursor=${first.body.nextCursor}`);
    expect(rest.body).toEqual({ events: [expect.objectContaining({ correlationId: 'bulk-50' })], nextCursor: null });
    expect((await page(org, '?limit=100')).body.events).toHaveLength(51);
  });

  it('answers another organisation admin, a plain member and no token as the other org routes do', async () => {
    const org = await stack.seedOrganization();
    await createInvite(org);
    const other = await stack.seedOrganization();
    const member = newInvitee();
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member.userId, member.email]);
    await stack.db.query(
      "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'Viewer')",
      [uuidv7(), member.userId, org.organizationId],
    );
    const cases: Array<[string | undefined, number, string]> = [
      [other.adminToken, 403, 'FORBIDDEN'],
      [await stack.token({ userId: member.userId, email: member.email }), 403, 'FORBIDDEN'],
      [undefined, 401, 'UNAUTHENTICATED'],
    ];
    for (const [token, status, code] of cases) {
      for (const query of ['', '?limit=1']) {
        const response = await stack.request('GET', historyPath(org, query), token !== undefined ? { token } : {});
        expect(response.status).toBe(status);
        expect(await response.json()).toEqual({ error: { code, message: expect.any(String) } });
      }
    }
  });

  it('refuses bad limits and cursors with 400 VALIDATION_FAILED', async () => {
    const org = await stack.seedOrganization();
    const encode = (text: string) => Buffer.from(text).toString('base64url');
    const queries = [
      '?limit=0',
      '?limit=101',
      '?limit=ten',
      '?limit=1.5',
      '?cursor=',
      '?cursor=not%20base64',
      `?cursor=${'A'.repeat(300)}`,
      `?cursor=${encode('garbage')}`,
      `?cursor=${encode(`2026-05-01T12:00:00.123Z|${uuidv7()}`)}`,
      `?cursor=${encode(`2026-05-01T12:00:00.123456Z|not-a-uuid`)}`,
      `?cursor=${encode(`2026-05-01T12:00:00.123456Z|${uuidv7()}|extra`)}`,
      `?cursor=${Buffer.from([0xff, 0xfe, 0x7c]).toString('base64url')}`,
      '?email=someone@example.test',
    ];
    for (const query of queries) {
      const response = await stack.request('GET', historyPath(org, query), { token: org.adminToken });
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code, query).toBe('VALIDATION_FAILED');
    }
    // A well-formed position no page handed out is just a position: older than it, nothing.
    const far = encode(`1999-01-01T00:00:00.000000Z|${uuidv7()}`);
    expect((await page(org, `?cursor=${far}`)).body).toEqual({ events: [], nextCursor: null });
  });

  it('canary: no page carries an invite token or an invitee email', async () => {
    const org = await stack.seedOrganization();
    const invites = [];
    for (let i = 0; i < 6; i += 1) invites.push(await createInvite(org));
    await stack.request('DELETE', `/orgs/${org.organizationId}/invites/${invites[0]!.inviteId}`, { token: org.adminToken });
    const texts: string[] = [];
    let cursor: string | null = null;
    do {
      const { text, body }: { text: string; body: HistoryPage } = await page(org, `?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`);
      texts.push(text);
      cursor = body.nextCursor;
    } while (cursor !== null);
    const all = texts.join('\n');
    // Positive control: the pages do name the invites.
    for (const invite of invites) expect(all).toContain(invite.inviteId);
    for (const invite of invites) {
      expect(all).not.toContain(invite.token);
      expect(all).not.toContain(invite.token.slice(4));
      expect(all.toLowerCase()).not.toContain(invite.email.toLowerCase());
    }
  });

  it('names an actor by email only while they are a member here, and only to a caller who may list the members', async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const people = memberFixtures(stack);
    const admin = await people.addMember(org.organizationId, 'OrganizationAdmin');
    const removed = await people.addMember(org.organizationId, 'OrganizationAdmin');
    const byAdmin = await createInvite({ ...org, adminToken: admin.token });
    const byRemoved = await createInvite({ ...org, adminToken: removed.token });
    expect((await people.remove(org.organizationId, removed.userId, org.adminToken)).status).toBe(204);
    // A row naming someone who belongs to another organisation only: this history must not tell who they are.
    await writeAudit(
      stack.deps.db,
      {
        action: 'invite.created',
        actorUserId: other.adminId,
        organizationId: org.organizationId,
        locationId: null,
        targetId: uuidv7(),
        correlationId: 'outsider-row',
      },
      new Date(),
    );
    const emails = (body: HistoryPage) =>
      Object.fromEntries(body.events.filter((e) => e.action === 'invite.created').map((e) => [e.inviteId ?? '', e.actorEmail]));
    const outsiderRow = (body: HistoryPage) => body.events.find((e) => e.correlationId === 'outsider-row');

    const asAdmin = (await page(org, '?limit=100')).body;
    expect(emails(asAdmin)[byAdmin.inviteId]).toBe(admin.email);
    expect(emails(asAdmin)[byRemoved.inviteId]).toBeNull();
    expect(outsiderRow(asAdmin)).toMatchObject({ actorUserId: other.adminId, actorEmail: null });
    expect(JSON.stringify(asAdmin)).not.toContain(other.adminEmail);

    const makeKey = async (scopes: string[]) => {
      const response = await stack.request('POST', `/orgs/${org.organizationId}/api-keys`, {
        token: org.adminToken,
        body: { name: `history ${scopes.join(' ')}`, scopes },
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { key: string }).key;
    };
    // A key that may not list the members reads the history, but no one in it is named.
    const historyOnly = (await page(org, '?limit=100', await makeKey(['invites:read']))).body;
    expect(historyOnly.events.length).toBe(asAdmin.events.length);
    expect(historyOnly.events.every((e) => e.actorEmail === null)).toBe(true);
    expect(JSON.stringify(historyOnly)).not.toContain(admin.email);
    // With members:read too, it learns no more than the member list tells it.
    const withMembers = (await page(org, '?limit=100', await makeKey(['invites:read', 'members:read']))).body;
    expect(emails(withMembers)[byAdmin.inviteId]).toBe(admin.email);
    expect(emails(withMembers)[byRemoved.inviteId]).toBeNull();
    expect(outsiderRow(withMembers)?.actorEmail).toBeNull();
  });
});

// The member routes through the real app on real Redis and PostgreSQL: the list (one item per role assignment, keyset
// pages that cover every assignment exactly once), a role change and a removal with their audit rows (the admin as
// actor, never a secret), and an admin of one organisation refused everything on another's members.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { memberFixtures, type ListedMember } from '../support/members.ts';
import { errorCode, passwordSignIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  stack = await startStack();
  m = memberFixtures(stack);
});
afterAll(async () => stack?.close());

const body = async <T>(response: Response) => (await response.json()) as T;

/** Every page of the list with `limit`, following nextCursor to the end. */
async function allPages(organizationId: string, token: string, limit: number): Promise<{ members: ListedMember[]; pages: number }> {
  const members: ListedMember[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `?limit=${limit}${cursor !== null ? `&cursor=${cursor}` : ''}`;
    const response = await m.list(organizationId, token, query);
    expect(response.status).toBe(200);
    const page = await body<{ members: ListedMember[]; nextCursor: string | null }>(response);
    expect(page.members.length).toBeLessThanOrEqual(limit);
    members.push(...page.members);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== null);
  return { members, pages };
}

describe('GET /orgs/{orgId}/members', () => {
  it('lists one item per role assignment, oldest grant first, with the user, role, scope and when it was granted', async () => {
    const org = await stack.seedOrganization();
    const outlet = await m.addOutlet(org.organizationId);
    const viewer = await m.addMember(org.organizationId, 'Viewer');
    // One user, an organisation-wide role and an Outlet's: two items.
    await m.grant(viewer.userId, org.organizationId, 'Accountant', outlet);
    const outletOnly = await m.addMember(org.organizationId, 'Viewer', outlet);
    const response = await m.list(org.organizationId, org.adminToken);
    expect(response.status).toBe(200);
    const page = await body<{ members: ListedMember[]; nextCursor: string | null }>(response);
    expect(page.nextCursor).toBeNull();
    expect(page.members.map(({ joinedAt: _, ...rest }) => rest)).toEqual([
      { userId: org.adminId, email: org.adminEmail, roleCode: 'OrganizationAdmin', locationId: null },
      { userId: viewer.userId, email: viewer.email, roleCode: 'Viewer', locationId: null },
      { userId: viewer.userId, email: viewer.email, roleCode: 'Accountant', locationId: outlet },
      { userId: outletOnly.userId, email: outletOnly.email, roleCode: 'Viewer', locationId: outlet },
    ]);
    for (const member of page.members) expect(member.joinedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Object.keys(page.members[0]!).sort()).toEqual(['email', 'joinedAt', 'locationId', 'roleCode', 'userId']);
  });

  it('pages cover every assignment exactly once, in order, while grants and removals happen between pages', async () => {
    const org = await stack.seedOrganization();
    const outlet = await m.addOutlet(org.organizationId);
    // 40 assignments granted within the same few milliseconds (ties on created_at are ordered by id), some users twice.
    const ids = Array.from({ length: 30 }, () => uuidv7());
    await stack.db.query(`INSERT INTO users (id, email) SELECT u, 'pg-' || u || '@example.test' FROM unnest($1::uuid[]) AS u`, [ids]);
    await stack.db.query(
      `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code, created_at)
       SELECT gen_random_uuid(), u, $2, NULL, 'Viewer', '2026-01-01T00:00:00Z'::timestamptz FROM unnest($1::uuid[]) AS u`,
      [ids, org.organizationId],
    );
    await stack.db.query(
      `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code, created_at)
       SELECT gen_random_uuid(), u, $2, $3, 'Accountant', '2026-01-01T00:00:00Z'::timestamptz FROM unnest($1::uuid[]) AS u`,
      [ids.slice(0, 9), org.organizationId, outlet],
    );
    const expected = await stack.db.query(
      'SELECT user_id, location_id FROM role_assignments WHERE organization_id = $1 ORDER BY created_at, id',
      [org.organizationId],
    );
    expect(expected.rows).toHaveLength(40);
    const { members, pages } = await allPages(org.organizationId, org.adminToken, 7);
    expect(pages).toBe(6);
    expect(members.map((member) => [member.userId, member.locationId])).toEqual(
      expected.rows.map((row: { user_id: string; location_id: string | null }) => [row.user_id, row.location_id]),
    );

    // Between pages: a grant lands after every cursor handed out, a removal shifts nothing.
    const first = await body<{ members: ListedMember[]; nextCursor: string }>(
      await m.list(org.organizationId, org.adminToken, '?limit=10'),
    );
    const late = await m.addMember(org.organizationId);
    expect((await m.remove(org.organizationId, first.members[3]!.userId, org.adminToken)).status).toBe(204);
    const rest: ListedMember[] = [];
    let cursor: string | null = first.nextCursor;
    while (cursor !== null) {
      const page: { members: ListedMember[]; nextCursor: string | null } = await body(
        await m.list(org.organizationId, org.adminToken, `?limit=10&cursor=${cursor}`),
      );
      rest.push(...page.members);
      cursor = page.nextCursor;
    }
    const seen = [...first.members, ...rest].map((member) => `${member.userId}/${member.locationId}`);
    expect(new Set(seen).size).toBe(seen.length);
    expect(rest.at(-1)?.userId).toBe(late.userId);
    expect(rest.map((member) => member.userId)).not.toContain(first.members[3]!.userId);
  });

  it('refuses a cursor no page handed out, a limit out of range and an unknown query field with 400', async () => {
    const org = await stack.seedOrganization();
    for (const query of [
      '?cursor=bm90LWEtY3Vyc29y',
      '?cursor=%24%24',
      `?cursor=${Buffer.from('2026-01-01T00:00:00.000Z|x').toString('base64url')}`,
      '?limit=0',
      '?limit=101',
      '?limit=ten',
      '?email=a@b.test',
    ]) {
      const response = await m.list(org.organizationId, org.adminToken, query);
      expect([query, response.status, await errorCode(response)]).toEqual([query, 400, 'VALIDATION_FAILED']);
    }
  });

  it('needs the organisation-wide OrganizationAdmin role: another role is 403, no token 401', async () => {
    const org = await stack.seedOrganization();
    const outlet = await m.addOutlet(org.organizationId);
    const accountant = await m.addMember(org.organizationId, 'Accountant');
    const outletAdmin = await m.addMember(org.organizationId, 'OrganizationAdmin', outlet);
    for (const token of [accountant.token, outletAdmin.token]) {
      const response = await m.list(org.organizationId, token);
      expect([response.status, await errorCode(response)]).toEqual([403, 'FORBIDDEN']);
    }
    expect((await stack.request('GET', `/orgs/${org.organizationId}/members`)).status).toBe(401);
  });
});

describe('PATCH /orgs/{orgId}/members/{userId}', () => {
  it('changes the role at the scope named, answers the member, and audits from and to with the admin as actor', async () => {
    const org = await stack.seedOrganization();
    const outlet = await m.addOutlet(org.organizationId);
    const member = await m.addMember(org.organizationId, 'Viewer');
    await m.grant(member.userId, org.organizationId, 'Viewer', outlet);

    const response = await m.changeRole(org.organizationId, member.userId, org.adminToken, { roleCode: 'Accountant' });
    expect(response.status).toBe(200);
    const { member: changed } = await body<{ member: ListedMember }>(response);
    expect(changed).toMatchObject({ userId: member.userId, email: member.email, roleCode: 'Accountant', locationId: null });
    expect(changed.joinedAt).toMatch(/Z$/);
    // The Outlet's role is another assignment, left as it was.
    expect(await m.rolesOf(member.userId, org.organizationId)).toEqual([
      { role_code: 'Accountant', location_id: null },
      { role_code: 'Viewer', location_id: outlet },
    ]);

    const atOutlet = await m.changeRole(org.organizationId, member.userId, org.adminToken, {
      roleCode: 'OrganizationAdmin',
      locationId: outlet,
    });
    expect(atOutlet.status).toBe(200);
    expect((await body<{ member: ListedMember }>(atOutlet)).member).toMatchObject({ roleCode: 'OrganizationAdmin', locationId: outlet });

    expect(await m.memberAudit(org.organizationId)).toEqual([
      {
        action: 'member.role_changed',
        actor_user_id: org.adminId,
        organization_id: org.organizationId,
        location_id: null,
        target_id: member.userId,
        details: { fromRole: 'Viewer', toRole: 'Accountant' },
      },
      {
        action: 'member.role_changed',
        actor_user_id: org.adminId,
        organization_id: org.organizationId,
        location_id: outlet,
        target_id: member.userId,
        details: { fromRole: 'Viewer', toRole: 'OrganizationAdmin' },
      },
    ]);
  });

  it('the same role again answers 200 and writes nothing; a promotion to organisation-wide admin works at once', async () => {
    const org = await stack.seedOrganization();
    const member = await m.addMember(org.organizationId, 'Viewer');
    const same = await m.changeRole(org.organizationId, member.userId, org.adminToken, { roleCode: 'Viewer', locationId: null });
    expect(same.status).toBe(200);
    expect(await m.memberAudit(org.organizationId)).toEqual([]);
    expect((await m.list(org.organizationId, member.token)).status).toBe(403);
    expect((await m.changeRole(org.organizationId, member.userId, org.adminToken, { roleCode: 'OrganizationAdmin' })).status).toBe(200);
    // The next request of the member's token reads the new role in PostgreSQL.
    expect((await m.list(org.organizationId, member.token)).status).toBe(200);
  });

  it('404 for an unknown user, a user of another organisation and a scope the member holds no role at; 400 for bad input', async () => {
    const org = await stack.seedOrganization();
    const outlet = await m.addOutlet(org.organizationId);
    const member = await m.addMember(org.organizationId, 'Viewer');
    const other = await stack.seedOrganization();
    for (const [userId, extra] of [
      [uuidv7(), {}],
      [other.adminId, {}],
      [member.userId, { locationId: outlet }],
    ] as const) {
      const response = await m.changeRole(org.organizationId, userId, org.adminToken, { roleCode: 'Accountant', ...extra });
      expect([response.status, await errorCode(response)]).toEqual([404, 'NOT_FOUND']);
    }
    const cases: Array<[string, Record<string, unknown>]> = [
      [member.userId, { roleCode: 'Owner' }],
      [member.userId, {}],
      [member.userId, { roleCode: 'Viewer', extra: true }],
      [member.userId, { roleCode: 'Viewer', locationId: 'not-a-uuid' }],
      // An Outlet of another organisation: the role check's location rule, as invites have it.
      [member.userId, { roleCode: 'Viewer', locationId: other.locationId }],
      ['not-a-uuid', { roleCode: 'Viewer' }],
    ];
    for (const [userId, payload] of cases) {
      const response = await m.changeRole(org.organizationId, userId, org.adminToken, payload);
      expect([response.status, await errorCode(response)]).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect(await m.rolesOf(member.userId, org.organizationId)).toEqual([{ role_code: 'Viewer', location_id: null }]);
    expect(await m.memberAudit(org.organizationId)).toEqual([]);
  });
});

describe('DELETE /orgs/{orgId}/members/{userId}', () => {
  it('removes every role of the member, answers 204, audits it with the admin as actor, and a repeat is 404', async () => {
    const org = await stack.seedOrganization();
    const outlet = await m.addOutlet(org.organizationId);
    const member = await m.addMember(org.organizationId, 'Accountant');
    await m.grant(member.userId, org.organizationId, 'Viewer', outlet);
    const signIn = await passwordSignIn(stack, member);
    await signIn(org.organizationId);
    await signIn(org.organizationId);

    const response = await m.remove(org.organizationId, member.userId, org.adminToken);
    expect(response.status).toBe(204);
    expect(await m.rolesOf(member.userId, org.organizationId)).toEqual([]);
    expect(await m.memberAudit(org.organizationId)).toEqual([
      {
        action: 'member.removed',
        actor_user_id: org.adminId,
        organization_id: org.organizationId,
        location_id: null,
        target_id: member.userId,
        details: { fromRole: 'Accountant', roleCount: 2, revokedCount: 2 },
      },
    ]);
    const again = await m.remove(org.organizationId, member.userId, org.adminToken);
    expect([again.status, await errorCode(again)]).toEqual([404, 'NOT_FOUND']);
    expect((await m.memberAudit(org.organizationId)).length).toBe(1);
    const unknown = await m.remove(org.organizationId, uuidv7(), org.adminToken);
    expect(unknown.status).toBe(404);
  });

  it('an admin may leave while another organisation-wide admin remains', async () => {
    const org = await stack.seedOrganization();
    await m.addMember(org.organizationId, 'OrganizationAdmin');
    expect((await m.remove(org.organizationId, org.adminId, org.adminToken)).status).toBe(204);
    const after = await m.list(org.organizationId, org.adminToken);
    expect([after.status, await errorCode(after)]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('an admin of organisation A on organisation B', () => {
  it('is refused on B: list, change and removal are 403, and nothing of B changes; B members through A are 404', async () => {
    const a = await stack.seedOrganization();
    const b = await stack.seedOrganization();
    const bMember = await m.addMember(b.organizationId, 'Viewer');
    const before = await stack.db.query(
      'SELECT id, user_id, role_code, location_id FROM role_assignments WHERE organization_id = $1 ORDER BY id',
      [b.organizationId],
    );
    const onB = [
      await m.list(b.organizationId, a.adminToken),
      await m.changeRole(b.organizationId, bMember.userId, a.adminToken, { roleCode: 'OrganizationAdmin' }),
      await m.changeRole(b.organizationId, b.adminId, a.adminToken, { roleCode: 'Viewer' }),
      await m.remove(b.organizationId, bMember.userId, a.adminToken),
      await m.remove(b.organizationId, b.adminId, a.adminToken),
    ];
    for (const response of onB) expect([response.status, await errorCode(response)]).toEqual([403, 'FORBIDDEN']);
    // B's members named under A's own organisation: no such member there.
    for (const response of [
      await m.changeRole(a.organizationId, bMember.userId, a.adminToken, { roleCode: 'OrganizationAdmin' }),
      await m.remove(a.organizationId, bMember.userId, a.adminToken),
      await m.remove(a.organizationId, b.adminId, a.adminToken),
    ]) {
      expect([response.status, await errorCode(response)]).toEqual([404, 'NOT_FOUND']);
    }
    const after = await stack.db.query(
      'SELECT id, user_id, role_code, location_id FROM role_assignments WHERE organization_id = $1 ORDER BY id',
      [b.organizationId],
    );
    expect(after.rows).toEqual(before.rows);
    expect(await m.memberAudit(b.organizationId)).toEqual([]);
    expect(await m.memberAudit(a.organizationId)).toEqual([]);
    const aListed = await body<{ members: ListedMember[] }>(await m.list(a.organizationId, a.adminToken));
    expect(aListed.members.map((member) => member.userId)).toEqual([a.adminId]);
  });
});

describe('audit rows', () => {
  it('never carry a token, a session id or a password: only ids, roles and counts', async () => {
    const org = await stack.seedOrganization();
    const member = await m.addMember(org.organizationId, 'Viewer');
    const signIn = await passwordSignIn(stack, member);
    const session = await signIn(org.organizationId);
    await m.changeRole(org.organizationId, member.userId, org.adminToken, { roleCode: 'Accountant' });
    expect((await m.remove(org.organizationId, member.userId, org.adminToken)).status).toBe(204);
    const rows = await stack.db.query(`SELECT * FROM audit_events WHERE organization_id = $1 AND action LIKE 'member.%'`, [
      org.organizationId,
    ]);
    expect(rows.rows).toHaveLength(2);
    const text = JSON.stringify(rows.rows);
    for (const secret of [org.adminToken, member.token, session.accessToken, session.refreshToken, session.sessionId]) {
      expect(text).not.toContain(secret);
    }
    // The positive control: the rows do name who acted on whom.
    expect(text).toContain(org.adminId);
    expect(text).toContain(member.userId);
  });
});

// Exactly once under concurrency: twenty parallel accepts of one invite give one grant, one audit row, one 200.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

it('20 parallel accepts of one invite: one 200, nineteen 410, one role row, one invite.accepted row', async () => {
  const org = await stack.seedOrganization();
  const person = newInvitee();
  const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email: person.email, roleCode: 'Viewer' },
  });
  const { invite, token } = (await created.json()) as { invite: { inviteId: string }; token: string };
  const bearer = await stack.token({ userId: person.userId, email: person.email });

  const responses = await Promise.all(
    Array.from({ length: 20 }, () => stack.request('POST', '/invites/accept', { token: bearer, body: { token } })),
  );
  const statuses = responses.map((r) => r.status).sort();
  expect(statuses.filter((s) => s === 200)).toHaveLength(1);
  expect(statuses.filter((s) => s === 410)).toHaveLength(19);

  const roles = await stack.db.query('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId]);
  expect(roles.rows[0].n).toBe(1);
  const audit = await stack.db.query("SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.accepted'", [
    invite.inviteId,
  ]);
  expect(audit.rows[0].n).toBe(1);
});

it('parallel cancels of one invite: one 204, the rest 404, one invite.cancelled row', async () => {
  const org = await stack.seedOrganization();
  const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email: newInvitee().email, roleCode: 'Viewer' },
  });
  const { invite } = (await created.json()) as { invite: { inviteId: string } };
  const responses = await Promise.all(
    Array.from({ length: 10 }, () =>
      stack.request('DELETE', `/orgs/${org.organizationId}/invites/${invite.inviteId}`, { token: org.adminToken }),
    ),
  );
  expect(responses.map((r) => r.status).filter((s) => s === 204)).toHaveLength(1);
  expect(responses.map((r) => r.status).filter((s) => s === 404)).toHaveLength(9);
  const audit = await stack.db.query("SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.cancelled'", [
    invite.inviteId,
  ]);
  expect(audit.rows[0].n).toBe(1);
});

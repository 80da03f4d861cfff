// Exactly once under concurrency: parallel accepts and cancels of one invite give one outcome, one row, and honest answers.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CROWD_REDIS_TIMEOUT_MS } from '../support/crowd.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  // Every test here is a crowd judged by its exact answers: a Redis call that waits past a production deadline for CPU
  // alone would answer 503 instead of 200, 204 or 410 (no test here breaks a store).
  stack = await startStack({ deps: { redisTimeoutMs: CROWD_REDIS_TIMEOUT_MS } });
});
afterAll(async () => stack?.close());

async function createInvite(org: { organizationId: string; adminToken: string }, email: string) {
  const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email, roleCode: 'Viewer' },
  });
  return (await created.json()) as { invite: { inviteId: string }; token: string };
}

async function count(sql: string, params: unknown[]): Promise<number> {
  return (await stack.db.query(sql, params)).rows[0].n as number;
}

it('20 parallel accepts by one account: each 200 or 410, one role row, one invite.accepted row, outcome accepted', async () => {
  const org = await stack.seedOrganization();
  const person = newInvitee();
  const { invite, token } = await createInvite(org, person.email);
  const bearer = await stack.token({ userId: person.userId, email: person.email });

  const responses = await Promise.all(
    Array.from({ length: 20 }, () => stack.request('POST', '/invites/accept', { token: bearer, body: { token } })),
  );
  const statuses = responses.map((r) => r.status);
  expect(statuses.every((s) => s === 200 || s === 410)).toBe(true);
  expect(statuses).toContain(200);

  expect(await count('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId])).toBe(1);
  expect(
    await count("SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.accepted'", [invite.inviteId]),
  ).toBe(1);
  const outcome = await stack.db.query('SELECT outcome, actor_user_id FROM invite_outcomes WHERE invite_id = $1', [invite.inviteId]);
  expect(outcome.rows).toEqual([{ outcome: 'accepted', actor_user_id: person.userId }]);
});

it('10 accounts with the verified email accept at once: exactly one wins, the others get 410', async () => {
  const org = await stack.seedOrganization();
  const email = newInvitee().email;
  const { invite, token } = await createInvite(org, email);
  const people = Array.from({ length: 10 }, () => newInvitee());
  const responses = await Promise.all(
    people.map(async (person) =>
      stack.request('POST', '/invites/accept', { token: await stack.token({ userId: person.userId, email }), body: { token } }),
    ),
  );
  expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array<number>(9).fill(410)]);
  expect(
    await count("SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.accepted'", [invite.inviteId]),
  ).toBe(1);
});

it('parallel cancels of one invite: each answered 204, one invite.cancelled row, outcome cancelled', async () => {
  const org = await stack.seedOrganization();
  const { invite } = await createInvite(org, newInvitee().email);
  const responses = await Promise.all(
    Array.from({ length: 10 }, () =>
      stack.request('DELETE', `/orgs/${org.organizationId}/invites/${invite.inviteId}`, { token: org.adminToken }),
    ),
  );
  expect(responses.map((r) => r.status)).toEqual(Array<number>(10).fill(204));
  expect(
    await count("SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.cancelled'", [invite.inviteId]),
  ).toBe(1);
  expect(
    await count("SELECT count(*)::int AS n FROM invite_outcomes WHERE invite_id = $1 AND outcome = 'cancelled'", [invite.inviteId]),
  ).toBe(1);
});

it('accepts and cancels racing on one invite: one outcome, and every answer agrees with it', async () => {
  const org = await stack.seedOrganization();
  const person = newInvitee();
  const { invite, token } = await createInvite(org, person.email);
  const bearer = await stack.token({ userId: person.userId, email: person.email });
  const calls = Array.from({ length: 12 }, (_, i) =>
    i % 2 === 0
      ? stack.request('POST', '/invites/accept', { token: bearer, body: { token } })
      : stack.request('DELETE', `/orgs/${org.organizationId}/invites/${invite.inviteId}`, { token: org.adminToken }),
  );
  const statuses = (await Promise.all(calls)).map((r) => r.status);
  const outcome = (await stack.db.query('SELECT outcome FROM invite_outcomes WHERE invite_id = $1', [invite.inviteId])).rows;
  expect(outcome).toHaveLength(1);
  const accepts = statuses.filter((_, i) => i % 2 === 0);
  const cancels = statuses.filter((_, i) => i % 2 === 1);
  if (outcome[0].outcome === 'accepted') {
    expect(accepts).toContain(200);
    expect(cancels.every((s) => s === 404)).toBe(true);
    expect(await count('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId])).toBe(1);
  } else {
    expect(cancels).toContain(204);
    expect(accepts.every((s) => s === 410)).toBe(true);
    expect(await count('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId])).toBe(0);
  }
  // The invite is gone from Redis either way: a finished invite is never live again.
  expect(await stack.redis.exists(stack.deps.keys.inviteObject(org.organizationId, invite.inviteId))).toBe(0);
});

// PostgreSQL hung: each route answers 503 within its call's deadline (lib/pg/call-policy.ts) and its compensation is done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_CALL_POLICY, type PgCallKind } from '../../lib/pg/call-policy.ts';
import type { StatementFault } from '../../local/emulators/neon/index.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';
import { withoutLimiterKeys } from '../support/limiter-keys.ts';

// Generous: the deadline is what is asserted, the slack absorbs a busy 2-core machine.
const SLACK_MS = 1_500;

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

async function create(org: Org, email: string) {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email, roleCode: 'Viewer' },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { invite: { inviteId: string }; token: string };
}

async function listed(org: Org): Promise<string[]> {
  const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
  expect(response.status).toBe(200);
  return ((await response.json()) as { invites: Array<{ inviteId: string }> }).invites.map((invite) => invite.inviteId);
}

/** Sends one request while PostgreSQL hangs on the statements `hang` matches; the answer must be 503 within `kind`'s deadline. */
async function whileHung(hang: StatementFault, kind: PgCallKind, send: () => Promise<Response>): Promise<void> {
  stack.neonProxy.stats.reset();
  stack.neonProxy.faults.set({ hang });
  let response: Response;
  const started = performance.now();
  try {
    response = await send();
  } finally {
    stack.neonProxy.faults.clear();
  }
  const elapsedMs = performance.now() - started;
  expect(stack.neonProxy.stats.heldRequests).toBe(1);
  expect(response.status).toBe(503);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
  expect(elapsedMs).toBeGreaterThanOrEqual(PG_CALL_POLICY[kind].timeoutMs - 50);
  expect(elapsedMs).toBeLessThan(PG_CALL_POLICY[kind].timeoutMs + SLACK_MS);
}

describe('PostgreSQL hung', () => {
  it('the role check: 503 within the read deadline, nothing touched in Redis', async () => {
    const org = await stack.seedOrganization();
    await whileHung({ matching: /AS is_admin/ }, 'read', () =>
      stack.request('POST', `/orgs/${org.organizationId}/invites`, {
        token: org.adminToken,
        body: { email: 'hung.rbac@example.test', roleCode: 'Viewer' },
      }),
    );
    expect(withoutLimiterKeys(await stack.redis.keys(`*:org:{${org.organizationId}}:*`))).toEqual([]);
  });

  it('create: 503 within the commit deadline, and the invite is taken back', async () => {
    const org = await stack.seedOrganization();
    await whileHung({ matching: /INSERT INTO audit_events/ }, 'commit', () =>
      stack.request('POST', `/orgs/${org.organizationId}/invites`, {
        token: org.adminToken,
        body: { email: 'hung.create@example.test', roleCode: 'Viewer' },
      }),
    );
    // Only the organisation's create throttle counter stays, for its window: no invite, no index.
    const left = withoutLimiterKeys(await stack.redis.keys(`*:org:{${org.organizationId}}:*`));
    expect(left.filter((key) => !key.includes(':throttle:counter:invite-create.'))).toEqual([]);
  });

  it('cancel: 503 within the commit deadline; the receipt holds the invite and the repeat finishes the cancel', async () => {
    const org = await stack.seedOrganization();
    const { invite } = await create(org, 'hung.cancel@example.test');
    const path = `/orgs/${org.organizationId}/invites/${invite.inviteId}`;
    await whileHung({ matching: /INSERT INTO audit_events/ }, 'commit', () => stack.request('DELETE', path, { token: org.adminToken }));
    // The outcome is unknown, so nothing is given back: the admin asked to cancel it.
    expect(await listed(org)).toEqual([]);
    expect((await stack.request('DELETE', path, { token: org.adminToken })).status).toBe(204);
    const outcome = await stack.db.query('SELECT outcome FROM invite_outcomes WHERE invite_id = $1', [invite.inviteId]);
    expect(outcome.rows).toEqual([{ outcome: 'cancelled' }]);
  });

  it('accept: 503 within the commit deadline; the invite is held for the account, whose retry grants it once', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { token } = await create(org, person.email);
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    await whileHung({ matching: /INSERT INTO role_assignments/ }, 'commit', () =>
      stack.request('POST', '/invites/accept', { token: bearer, body: { token } }),
    );
    expect(await listed(org)).toEqual([]);
    const roles = await stack.db.query('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId]);
    expect(roles.rows[0].n).toBe(0);
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token } })).status).toBe(200);
    const granted = await stack.db.query('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId]);
    expect(granted.rows[0].n).toBe(1);
  });
});

// Redis loses everything under traffic (FLUSHALL of the server both stores live on): invites accepted, created and
// listed, sessions checked, while the data goes. No grant twice, no 5xx, nothing permanent lost, no revoked token through.
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { waitForWholeDenylist } from '../support/denylist.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

let own: RedisServerHandle;
let stack: TestStack;

beforeAll(async () => {
  // A Redis of its own: the FLUSHALL reaches no other test file.
  own = await startRedisServer();
  stack = await startStack({ redisUrl: own.url });
});

afterAll(async () => {
  await stack?.close();
  await own?.stop();
});

const INVITEES = 24;

describe('FLUSHALL under traffic', () => {
  it('no duplicate grant, no 5xx, every audit row kept, no revoked token let through', async () => {
    const org = await stack.seedOrganization();
    const path = `/orgs/${org.organizationId}/invites`;
    const people = Array.from({ length: INVITEES }, () => newInvitee());
    const invited = await Promise.all(
      people.map(async (person) => {
        const response = await stack.request('POST', path, { token: org.adminToken, body: { email: person.email, roleCode: 'Viewer' } });
        expect(response.status).toBe(201);
        const { invite, token } = (await response.json()) as { invite: { inviteId: string }; token: string };
        return { person, inviteId: invite.inviteId, token, bearer: await stack.token({ userId: person.userId, email: person.email }) };
      }),
    );
    const revoked = await stack.token({ userId: org.adminId, sessionId: uuidv7() });
    expect((await stack.request('POST', '/auth/logout', { token: revoked })).status).toBe(204);

    const statuses: Array<{ what: string; status: number }> = [];
    const record = async (what: string, response: Promise<Response>) => {
      const answered = await response;
      await answered.body?.cancel();
      statuses.push({ what, status: answered.status });
      return answered.status;
    };
    let stop = false;
    const accepts = invited.map(async ({ token, bearer }, i) => {
      // Staggered, and repeated as a client whose reply was lost would: the same account, the same token.
      await new Promise((resolve) => setTimeout(resolve, i * 15));
      for (let attempt = 0; attempt < 3; attempt += 1)
        await record('accept', stack.request('POST', '/invites/accept', { token: bearer, body: { token } }));
    });
    const readers = (async () => {
      for (let i = 0; !stop; i += 1) {
        await record('list', stack.request('GET', path, { token: org.adminToken }));
        await record('revoked', stack.request('GET', '/auth/context', { token: revoked }));
        await record(
          'create',
          stack.request('POST', path, { token: org.adminToken, body: { email: `late-${i}@example.test`, roleCode: 'Viewer' } }),
        );
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await stack.redis.flushall();
    await Promise.all(accepts);
    await waitForWholeDenylist(stack, () => stack.request('GET', '/auth/context', { token: org.adminToken }));
    stop = true;
    await readers;

    // Every answer is one the documentation names for a lost object or a refusal; none is a server error.
    expect(statuses.filter((s) => s.status >= 500)).toEqual([]);
    expect(statuses.filter((s) => s.what === 'accept' && ![200, 410].includes(s.status))).toEqual([]);
    expect(statuses.filter((s) => s.what === 'revoked' && s.status !== 401)).toEqual([]);
    expect(statuses.filter((s) => s.what === 'create' && s.status !== 201)).toEqual([]);

    // No grant twice: at most one role and one invite.accepted per invite; each accepted invite has its outcome row.
    for (const { person, inviteId } of invited) {
      const roles = await stack.db.query('SELECT count(*)::int AS n FROM role_assignments WHERE user_id = $1', [person.userId]);
      const accepted = await stack.db.query(
        "SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'invite.accepted'",
        [inviteId],
      );
      const outcome = await stack.db.query('SELECT count(*)::int AS n FROM invite_outcomes WHERE invite_id = $1', [inviteId]);
      expect(roles.rows[0].n).toBeLessThanOrEqual(1);
      expect(accepted.rows[0].n).toBe(roles.rows[0].n);
      expect(outcome.rows[0].n).toBe(roles.rows[0].n);
    }
    // Nothing permanent lost: every create answered 201 has its audit row.
    const created = statuses.filter((s) => s.what === 'create').length + INVITEES;
    const rows = await stack.db.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1 AND action = 'invite.created'",
      [org.organizationId],
    );
    expect(rows.rows[0].n).toBe(created);
  });
});

// Canary: Syrve passwords (plain and SHA-1, old and new) and session ids appear nowhere but the ciphertext and the Redis session value.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStack, type TestStack } from '../support/stack.ts';
import { connectFake, sendRotation, startFakeSyrve, storesPath, type FakeSyrve } from '../support/syrve.ts';

let stack: TestStack;
let fake: FakeSyrve;
beforeAll(async () => {
  stack = await startStack({ separateRevocationProxy: true });
  fake = await startFakeSyrve();
});
afterAll(async () => {
  await fake?.close();
  await stack?.close();
});

/** Every form a secret could leak in: plain, upper-case, base64, base64url, URL-encoded, and hex of its bytes. */
function leakForms(secret: string): string[] {
  const base64 = Buffer.from(secret).toString('base64');
  return [
    secret,
    secret.toUpperCase(),
    base64,
    base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    encodeURIComponent(secret),
    Buffer.from(secret).toString('hex'),
  ];
}

const sha1 = (text: string) => createHash('sha1').update(text, 'utf8').digest('hex');

/** Redis key names and values (the runtime session's value kept apart: it is the one place a session id may be), PostgreSQL, logs. */
async function everythingStored(s: TestStack, options: { withSessionValues?: boolean } = {}): Promise<string> {
  const parts: string[] = [];
  for (const key of await s.redis.keys('*')) {
    parts.push(key);
    if (!options.withSessionValues && key.includes(':syrve:runtime-token:')) continue;
    const type = await s.redis.type(key);
    if (type === 'string') parts.push((await s.redis.get(key)) ?? '');
    if (type === 'zset') parts.push((await s.redis.zrange(key, 0, -1, 'WITHSCORES')).join(' '));
  }
  for (const table of ['organizations', 'users', 'role_assignments', 'audit_events', 'syrve_connections', 'webhook_deliveries']) {
    parts.push(JSON.stringify((await s.db.query(`SELECT * FROM ${table}`)).rows));
  }
  parts.push(...s.logs);
  return parts.join('\n');
}

it('passwords and session ids leak nowhere, through create, calls, a 403, refusals, a Redis fault, rotation and disable', async () => {
  const oldPassword = 'Canary-Old-Pässword-7f3a9c';
  const newPassword = 'Canary-New-Password-b81e44';
  const responses: string[] = [];
  const record = async (response: Response) => {
    responses.push(`${response.status} ${JSON.stringify([...response.headers])} ${await response.clone().text()}`);
    return response;
  };
  const org = await stack.seedOrganization();
  const connection = await connectFake({ request: async (...args) => record(await stack.request(...args)) }, org, fake, {
    login: 'canary-manager',
    password: oldPassword,
  });
  const base = `/orgs/${org.organizationId}/syrve/connections/${connection.connectionId}`;
  const admin = { token: org.adminToken };
  await record(await stack.request('POST', `${base}/test`, admin));
  await record(await stack.request('GET', storesPath(org, connection), admin));

  // Positive control: the session's value does hold the live session id, and the scan reads it when asked to.
  const live = fake.issuedSessions().at(-1)!;
  expect(await everythingStored(stack, { withSessionValues: true })).toContain(live);

  fake.forbidNext(1); // a 403: drop, log in again, retry
  await record(await stack.request('GET', storesPath(org, connection), admin));
  fake.refuseLogins(true);
  fake.expireSessions();
  await record(await stack.request('GET', storesPath(org, connection), admin)); // refused login → 502
  fake.refuseLogins(false);
  stack.redisProxy.faults.set({ refuse: true });
  await record(await stack.request('GET', storesPath(org, connection), admin)); // 503
  stack.redisProxy.faults.clear();

  fake.setAccount('canary-manager-2', newPassword);
  await record(
    await sendRotation(stack, {
      organizationId: org.organizationId,
      connectionId: connection.connectionId,
      login: 'canary-manager-2',
      password: newPassword,
    }),
  );
  await record(await stack.request('GET', storesPath(org, connection), admin));
  await record(await stack.request('GET', `/orgs/${org.organizationId}/syrve/connections`, admin));
  await record(await stack.request('DELETE', base, admin));
  await record(await stack.request('GET', '/openapi.json'));

  const sessions = fake.issuedSessions();
  expect(sessions.length).toBeGreaterThanOrEqual(3);
  const canaries = [oldPassword, newPassword, sha1(oldPassword), sha1(newPassword), ...sessions];
  const haystack = `${await everythingStored(stack)}\n${responses.join('\n')}`;
  for (const canary of canaries) {
    for (const form of leakForms(canary)) expect(haystack.includes(form), `a form of a canary leaked: ${form.slice(0, 6)}…`).toBe(false);
  }
  // The ciphertext is the one place the password lives, and it opens only with the key (tests/syrve-connections checks that).
  const row = (await stack.db.query('SELECT password_ciphertext FROM syrve_connections WHERE id = $1', [connection.connectionId])).rows[0];
  expect(row.password_ciphertext).toMatch(/^[A-Za-z0-9_-]{40,}$/);
});

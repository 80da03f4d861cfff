// Canary: a known invite token appears nowhere but the create response, and a refresh token nowhere but the answers that
// hand it out (a retry's included) — no Redis key or value, no PostgreSQL row, no log line, no error body.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sha256Hex } from '../../lib/crypto/index.ts';
import { EVENT_TYPES } from '../../lib/events/index.ts';
import { passwordSignIn } from '../support/sessions.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

/** Every form a secret could leak in: plain, base64, base64url, URL-encoded, and as raw bytes in a hex dump. */
function leakForms(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const base64 = btoa(String.fromCharCode(...bytes));
  return [
    secret,
    base64,
    base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    encodeURIComponent(secret),
    Buffer.from(secret).toString('hex'),
  ];
}

async function everythingStored(s: TestStack): Promise<string> {
  const parts: string[] = [];
  for (const key of await s.redis.keys('*')) {
    parts.push(key);
    const type = await s.redis.type(key);
    if (type === 'string') parts.push((await s.redis.get(key)) ?? '');
    if (type === 'zset') parts.push((await s.redis.zrange(key, 0, -1, 'WITHSCORES')).join(' '));
  }
  for (const table of [
    'organizations',
    'locations',
    'users',
    'role_assignments',
    'sessions',
    'refresh_tokens',
    'audit_events',
    'webhook_endpoints',
    'webhook_events',
    'webhook_endpoint_deliveries',
  ]) {
    const rows = await s.db.query(`SELECT * FROM ${table}`);
    parts.push(JSON.stringify(rows.rows));
  }
  parts.push(...s.logs);
  return parts.join('\n');
}

function findLeaks(haystack: string, secret: string): string[] {
  return leakForms(secret).filter((form) => haystack.includes(form));
}

it('the scan finds a planted canary in every form (positive control)', async () => {
  const planted = 'rsi_canary-positive-control-0123456789';
  await stack.redis.set(`positive-control:${Buffer.from(planted).toString('base64')}`, 'x', 'EX', 60);
  stack.logs.push(JSON.stringify({ event: 'control', value: encodeURIComponent(planted) }));
  const leaks = findLeaks(await everythingStored(stack), planted);
  expect(leaks).toContain(Buffer.from(planted).toString('base64'));
  expect(leaks).toContain(encodeURIComponent(planted));
  await stack.redis.del(`positive-control:${Buffer.from(planted).toString('base64')}`);
  stack.logs.pop();
});

it('an invite token is seen once, in the create response, and nowhere else through its whole life', async () => {
  const org = await stack.seedOrganization();
  const person = newInvitee();
  // Every event of the invite's life goes to the outbox too, which the scan reads.
  const endpoint = await stack.request('POST', `/orgs/${org.organizationId}/webhook-endpoints`, {
    token: org.adminToken,
    body: { url: 'http://127.0.0.1:9/hook', events: [...EVENT_TYPES] },
  });
  expect(endpoint.status).toBe(201);
  const responses: string[] = [];
  const record = async (response: Response) => {
    responses.push(await response.clone().text());
    return response;
  };
  const created = await record(
    await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: person.email, roleCode: 'Viewer' },
    }),
  );
  const { token } = (await created.json()) as { token: string };
  const bearer = await stack.token({ userId: person.userId, email: person.email });
  const stranger = await stack.token({ userId: newInvitee().userId, email: 'stranger@example.test' });

  await record(await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken }));
  const whileActive = await everythingStored(stack);
  expect(findLeaks(whileActive, token)).toEqual([]);
  // The scan reads the invite's value: what is stored there is the token's hash, never the token.
  expect(whileActive).toContain(await sha256Hex(token));
  // Failure paths log and answer too: wrong recipient, then Redis failing mid-accept.
  await record(await stack.request('POST', '/invites/accept', { token: stranger, body: { token } }));
  stack.redisProxy.faults.set({ failCommands: ['evalsha', 'eval'] });
  await record(await stack.request('POST', '/invites/accept', { token: bearer, body: { token } }));
  stack.redisProxy.faults.clear();
  stack.neonProxy.faults.set({ refuse: true });
  await record(await stack.request('POST', '/invites/accept', { token: bearer, body: { token } }));
  stack.neonProxy.faults.clear();
  await record(await stack.request('POST', '/invites/accept', { token: bearer, body: { token } }));
  await record(await stack.request('POST', '/invites/accept', { token: bearer, body: { token } }));

  expect(findLeaks(await everythingStored(stack), token)).toEqual([]);
  // Positive control: the outbox holds the invite's events, the member's arrival among them.
  const types = await stack.db.query('SELECT type FROM webhook_events WHERE organization_id = $1 ORDER BY id', [org.organizationId]);
  expect(types.rows.map((row: { type: string }) => row.type)).toEqual(
    expect.arrayContaining(['invite.created', 'member.added', 'invite.accepted']),
  );
  expect(findLeaks(responses.slice(1).join('\n'), token)).toEqual([]);
  expect(findLeaks(responses[0]!, token)).not.toEqual([]);
  // The accept that finally succeeded is among the scanned responses.
  expect(responses.at(-2)).toContain(org.organizationId);
});

it('refresh tokens, a retried one and a stolen one included, are seen only in the answers that hand them out', async () => {
  const org = await stack.seedOrganization();
  const session = await (await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail }))(org.organizationId);
  const shown: string[] = [session.refreshToken];
  const errors: string[] = [];
  const refresh = async (refreshToken: string): Promise<string | undefined> => {
    const response = await stack.request('POST', '/auth/refresh', { body: { refreshToken } });
    const text = await response.text();
    if (response.status !== 200) {
      errors.push(text);
      return undefined;
    }
    const next = (JSON.parse(text) as { refreshToken: string }).refreshToken;
    shown.push(next);
    return next;
  };
  const first = await refresh(session.refreshToken);
  // A retry within the grace (the same successor again), two tabs at once, then the old token after the successor moved on.
  expect(await refresh(session.refreshToken)).toBe(first);
  const [a, b] = await Promise.all([refresh(first!), refresh(first!)]);
  expect(a).toBe(b);
  await refresh(a!);
  expect(await refresh(session.refreshToken)).toBeUndefined();
  expect(await refresh(a!)).toBeUndefined();
  // Failures answer too: PostgreSQL refusing the refresh.
  stack.neonProxy.faults.set({ refuse: true });
  expect(await refresh(a!)).toBeUndefined();
  stack.neonProxy.faults.clear();

  const stored = await everythingStored(stack);
  // Positive control: the scan reads refresh_tokens, where the successor's hash is.
  expect(stored).toContain(await sha256Hex(a!));
  for (const token of new Set(shown)) {
    expect(findLeaks(stored, token)).toEqual([]);
    expect(findLeaks(errors.join('\n'), token)).toEqual([]);
  }
});

it("an endpoint's signing secret is seen only in the create and rotate answers that hand it out", async () => {
  const org = await stack.seedOrganization();
  const base = `/orgs/${org.organizationId}/webhook-endpoints`;
  const created = await stack.request('POST', base, {
    token: org.adminToken,
    body: { url: 'http://127.0.0.1:9/hook', events: [...EVENT_TYPES], description: 'canary' },
  });
  expect(created.status).toBe(201);
  const { endpoint, secret } = (await created.json()) as { endpoint: { endpointId: string }; secret: string };
  const rotated = await stack.request('POST', `${base}/${endpoint.endpointId}/rotate-secret`, { token: org.adminToken });
  const { secret: next } = (await rotated.json()) as { secret: string };
  const others: string[] = [];
  for (const [method, path, body] of [
    ['GET', base, undefined],
    ['GET', `${base}/${endpoint.endpointId}`, undefined],
    ['PATCH', `${base}/${endpoint.endpointId}`, { description: 'still canary' }],
    ['GET', `${base}/${endpoint.endpointId}/deliveries`, undefined],
  ] as const) {
    others.push(await (await stack.request(method, path, { token: org.adminToken, ...(body === undefined ? {} : { body }) })).text());
  }
  // An event written while both secrets are live, and a failing rotation's answer.
  const member = newInvitee();
  await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member.userId, member.email]);
  await stack.db.query(
    "INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES (gen_random_uuid(), $1, $2, 'Viewer')",
    [member.userId, org.organizationId],
  );
  others.push(
    await (
      await stack.request('PATCH', `/orgs/${org.organizationId}/members/${member.userId}`, {
        token: org.adminToken,
        body: { roleCode: 'Accountant' },
      })
    ).text(),
  );
  stack.neonProxy.faults.set({ refuse: true });
  others.push(await (await stack.request('POST', `${base}/${endpoint.endpointId}/rotate-secret`, { token: org.adminToken })).text());
  stack.neonProxy.faults.clear();

  const stored = await everythingStored(stack);
  // Positive control: the scan reads the endpoint's row (its sealed secrets) and the outbox.
  expect(stored).toContain(endpoint.endpointId);
  expect(stored).toContain('member.role_changed');
  for (const shown of [secret, next]) {
    expect(findLeaks(stored, shown)).toEqual([]);
    expect(findLeaks(others.join('\n'), shown)).toEqual([]);
    // The secret's own bytes (what a receiver's HMAC key is) too.
    expect(stored).not.toContain(shown.slice('whsec_'.length));
  }
});

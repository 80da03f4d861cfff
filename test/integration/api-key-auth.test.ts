// API keys on the routes they reach: one Redis round trip and no PostgreSQL on a hit, only their own organisation and
// scopes, their own limit, refused at once when revoked and within a second when the store lost or rolled back the
// revocation, unknown keys cheap and throttled per address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_SCOPES } from '../../lib/auth/api-keys/scopes.ts';
import { apiKeyHash } from '../../lib/auth/api-keys/key-hash.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { newOperator } from '../support/operators.ts';
import { orgRoutes } from '../support/org-routes.ts';
import { errorCode } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

// A clock the test moves: an isolate reads the organisation's key seq at most once a second of this clock.
let nowMs = Date.now();
const clock = { now: () => nowMs };
const nextSecond = () => {
  nowMs += 1_001;
};

const operator = newOperator('ops');

let stack: TestStack;
beforeAll(async () => {
  // Email delivery configured, so a key's resend can send (the notifier drops every message).
  stack = await startStack({
    env: { INVITE_LINK_BASE: 'https://app.example.test/invite', OPERATOR_TOKEN_HASHES: operator.entry },
    deps: { clock, notifier: { send: async () => undefined } },
  });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

async function makeKey(org: Org, body: Record<string, unknown> = {}): Promise<{ apiKeyId: string; key: string }> {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/api-keys`, {
    token: org.adminToken,
    body: { name: 'sync', scopes: ['members:read'], ...body },
  });
  expect(response.status).toBe(201);
  const made = (await response.json()) as { apiKey: { apiKeyId: string }; key: string };
  return { apiKeyId: made.apiKey.apiKeyId, key: made.key };
}

const members = (orgId: string, key: string, ip?: string) =>
  stack.request('GET', `/orgs/${orgId}/members`, { token: key, ...(ip !== undefined ? { headers: { [TEST_CLIENT_IP_HEADER]: ip } } : {}) });

function costs() {
  return { redis: stack.redisProxy.stats.commands, postgres: stack.neonProxy.stats.httpRequests };
}
function resetCosts() {
  stack.redisProxy.stats.reset();
  stack.neonProxy.stats.reset();
}

/** Waits (with a deadline) for the lastUsedAt write a key's first request sends after its answer, so it is not counted later. */
async function lastUsedWritten(apiKeyId: string): Promise<unknown> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const used: unknown =
      (await stack.db.query('SELECT last_used_at FROM api_keys WHERE id = $1', [apiKeyId])).rows[0]?.last_used_at ?? null;
    if (used !== null || Date.now() > deadline) return used;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function answer(response: Response): Promise<[number, string | undefined]> {
  return [response.status, await errorCode(response.clone())];
}

describe('a key on a route it reaches', () => {
  it('is answered with one Redis command and no PostgreSQL once its entry is warm, with its limits in the RateLimit fields', async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org);
    const first = await members(org.organizationId, key);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { members: unknown[] }).members).toHaveLength(1);
    // lastUsedAt is written after the answer, once a minute.
    expect(await lastUsedWritten(apiKeyId)).toEqual(new Date(nowMs));
    resetCosts();
    const hit = await members(org.organizationId, key);
    expect(hit.status).toBe(200);
    // The check is one EVALSHA; the route's own work is the member list's one PostgreSQL read.
    expect(costs()).toEqual({ redis: 1, postgres: 1 });
    expect(hit.headers.get('ratelimit-policy')).toContain('"user";q=1000;w=60');
  });

  it('answers 429 past its own per-minute limit, counted with the organisation’s limits', async () => {
    const org = await stack.seedOrganization();
    const { key } = await makeKey(org, { rateLimitPerMinute: 2 });
    expect((await members(org.organizationId, key)).status).toBe(200);
    expect((await members(org.organizationId, key)).status).toBe(200);
    const third = await members(org.organizationId, key);
    expect(await answer(third)).toEqual([429, 'RATE_LIMITED']);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe("the organisation's plan", () => {
  it('a key request fills the plan entry after its answer, and the next requests count with the plan', async () => {
    const org = await stack.seedOrganization();
    await stack.db.query('INSERT INTO organization_rate_limits (organization_id, user_per_minute) VALUES ($1, 7)', [org.organizationId]);
    const { key } = await makeKey(org);
    // The admin's request that made the key filled the entry: gone again, as after its TTL, so only keys ask.
    const planEntries = () => stack.redis.keys(`*:org:{${org.organizationId}}:*rate-limits*`);
    const filled = await planEntries();
    if (filled.length > 0) await stack.redis.del(...filled);
    const first = await members(org.organizationId, key);
    expect(first.status).toBe(200);
    // No plan entry: the defaults counted this one.
    expect(first.headers.get('ratelimit-policy')).toContain('"user";q=1000;w=60');
    const deadline = Date.now() + 5_000;
    while ((await planEntries()).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const next = await members(org.organizationId, key);
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit-policy')).toContain('"user";q=7;w=60');
  });
});

describe('what a key never reaches', () => {
  it('a route beyond its scopes, an account route, the key routes: 403 SCOPE_MISSING, the last two before any store', async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org, { scopes: ['invites:read'] });
    expect(await answer(await members(org.organizationId, key))).toEqual([403, 'SCOPE_MISSING']);
    expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: key })).status).toBe(200);
    await lastUsedWritten(apiKeyId);
    resetCosts();
    for (const [method, path] of [
      ['GET', '/auth/sessions'],
      ['GET', '/auth/context'],
      ['POST', '/auth/sessions/revoke-all'],
      ['GET', `/orgs/${org.organizationId}/api-keys`],
      ['POST', `/orgs/${org.organizationId}/api-keys/${apiKeyId}/roll`],
      ['DELETE', `/orgs/${org.organizationId}/api-keys/${apiKeyId}`],
    ] as const) {
      const body = method === 'POST' && path.endsWith('/roll') ? { overlapSeconds: 0 } : undefined;
      expect(await answer(await stack.request(method, path, { token: key, ...(body !== undefined ? { body } : {}) })), path).toEqual([
        403,
        'SCOPE_MISSING',
      ]);
    }
    expect(costs()).toEqual({ redis: 0, postgres: 0 });
  });

  it("another organisation's routes: 401 as an unknown key, and nothing is counted or cached in its own organisation", async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const { key } = await makeKey(org);
    expect(await answer(await members(other.organizationId, key))).toEqual([401, 'UNAUTHENTICATED']);
    expect(await stack.redis.keys(`*:org:{${org.organizationId}}:auth:api-key:*`)).toEqual([]);
    expect(await stack.redis.keys(`*:org:{${other.organizationId}}:auth:api-key:*`)).toHaveLength(1);
  });

  it("another organisation's every scoped route, the key holding every scope: 401, before its rate limits count or anything of it is written", async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const { key } = await makeKey(org, { scopes: [...API_KEY_SCOPES] });
    const doc = (await (await stack.request('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, { 'x-scopes'?: string[] }>>;
    };
    const scoped = (await orgRoutes(stack)).filter(
      (route) => doc.paths[route.template]![route.method.toLowerCase()]!['x-scopes'] !== undefined,
    );
    expect(scoped.length).toBeGreaterThan(10);
    const audit = async () =>
      (await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [other.organizationId])).rows[0].n;
    const auditBefore = await audit();
    const ip = '127.9.7.1';
    for (const route of scoped) {
      const path = route.template.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'orgId' ? other.organizationId : name === 'domain' ? 'walk.example' : crypto.randomUUID(),
      );
      const response = await stack.request(route.method, path, {
        token: key,
        headers: { [TEST_CLIENT_IP_HEADER]: ip },
        ...(route.body !== undefined ? { body: route.body } : {}),
      });
      expect([route.method, route.template, ...(await answer(response))]).toEqual([route.method, route.template, 401, 'UNAUTHENTICATED']);
      expect(response.headers.get('ratelimit')).toBeNull();
    }
    // No rate-limit counter of the organisation moved (the tenant's, a route's); nothing audited there. What the key left
    // there is its refusal: the negative entry, and the address's refusal count in the organisation.
    expect(await stack.redis.keys(`*:org:{${other.organizationId}}:ratelimit:*`)).toEqual([]);
    expect(await audit()).toBe(auditBefore);
    expect(await stack.redis.keys(`*:org:{${other.organizationId}}:auth:api-key:*`)).toHaveLength(1);
    // The organisation's own admin is answered as before.
    expect((await stack.request('GET', `/orgs/${other.organizationId}/members`, { token: other.adminToken })).status).toBe(200);
  });

  it('a malformed key or one whose checksum does not match: 401 before any store', async () => {
    const org = await stack.seedOrganization();
    const { key } = await makeKey(org);
    resetCosts();
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    for (const bad of [typo, key.slice(0, -1), 'rsk_', `rsk_${'0'.repeat(38)}`]) {
      expect(await answer(await members(org.organizationId, bad)), bad.slice(0, 6)).toEqual([401, 'UNAUTHENTICATED']);
    }
    expect(costs()).toEqual({ redis: 0, postgres: 0 });
  });

  it('every documented organisation route declares a known scope or refuses keys with 403 SCOPE_MISSING', async () => {
    const org = await stack.seedOrganization();
    const { key } = await makeKey(org, { scopes: [...API_KEY_SCOPES] });
    const doc = (await (await stack.request('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, { 'x-scopes'?: string[]; security?: Array<Record<string, string[]>> }>>;
    };
    const lines: string[] = [];
    for (const route of await orgRoutes(stack)) {
      const operation = doc.paths[route.template]![route.method.toLowerCase()]!;
      const scopes = operation['x-scopes'];
      const path = route.template.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'orgId' ? org.organizationId : name === 'domain' ? 'walk.example' : crypto.randomUUID(),
      );
      const response = await stack.request(route.method, path, { token: key, ...(route.body !== undefined ? { body: route.body } : {}) });
      const code = await errorCode(response);
      if (scopes === undefined) {
        lines.push(`${route.method} ${route.template} → ${response.status} ${code ?? ''}`);
        continue;
      }
      expect(
        scopes.every((scope) => (API_KEY_SCOPES as readonly string[]).includes(scope)),
        route.template,
      ).toBe(true);
      expect(operation.security).toContainEqual({ apiKeyAuth: scopes });
      // Reached: the route's own answer (a read's 200, a write's 201, 202 or 204, 404 for a made-up id; a domain's verify
      // 503 NOT_CONFIGURED, as this stack has no resolver), never a refusal of the key.
      const reached = [200, 201, 202, 204, 404].includes(response.status) || code === 'NOT_CONFIGURED';
      expect(reached, `${route.method} ${route.template} → ${response.status} ${code ?? ''}`).toBe(true);
    }
    expect(lines.length).toBeGreaterThan(10);
    expect(lines).toEqual(lines.map((line) => line.replace(/→ .*$/, '→ 403 SCOPE_MISSING')));
  });
});

describe('a key that writes', () => {
  const auditRows = async (orgId: string, action: string) =>
    (
      await stack.db.query<{ actor_user_id: string | null; actor_api_key_id: string | null; target_id: string }>(
        'SELECT actor_user_id, actor_api_key_id, target_id FROM audit_events WHERE organization_id = $1 AND action = $2',
        [orgId, action],
      )
    ).rows;

  it('with invites:write creates an invite; the audit row, the history and the export name the key as the actor', async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org, { scopes: ['invites:write', 'invites:read', 'exports:write', 'exports:read'] });
    const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: key,
      body: { email: 'cook@example.test', roleCode: 'Viewer' },
    });
    expect(created.status).toBe(201);
    const { invite } = (await created.json()) as { invite: { inviteId: string } };
    expect(await auditRows(org.organizationId, 'invite.created')).toEqual([
      { actor_user_id: null, actor_api_key_id: apiKeyId, target_id: invite.inviteId },
    ]);
    const resent = await stack.request('POST', `/orgs/${org.organizationId}/invites/${invite.inviteId}/resend`, { token: key });
    expect(resent.status).toBe(200);
    expect(await auditRows(org.organizationId, 'invite.resent')).toEqual([
      { actor_user_id: null, actor_api_key_id: apiKeyId, target_id: invite.inviteId },
    ]);
    const cancelled = await stack.request('DELETE', `/orgs/${org.organizationId}/invites/${invite.inviteId}`, { token: key });
    expect(cancelled.status).toBe(204);
    expect(await auditRows(org.organizationId, 'invite.cancelled')).toEqual([
      { actor_user_id: null, actor_api_key_id: apiKeyId, target_id: invite.inviteId },
    ]);
    // The outcome row keeps the admin in whose name the key acts (invite_outcomes.actor_user_id is a user).
    expect((await stack.db.query('SELECT actor_user_id FROM invite_outcomes WHERE invite_id = $1', [invite.inviteId])).rows).toEqual([
      { actor_user_id: org.adminId },
    ]);
    const history = await stack.request('GET', `/orgs/${org.organizationId}/invites/history`, { token: key });
    expect(((await history.json()) as { events: unknown[] }).events).toEqual([
      expect.objectContaining({ action: 'invite.cancelled', actorUserId: null, actor: { type: 'api_key', apiKeyId } }),
      expect.objectContaining({ action: 'invite.resent', actorUserId: null, actor: { type: 'api_key', apiKeyId } }),
      expect.objectContaining({ action: 'invite.created', actorUserId: null, actor: { type: 'api_key', apiKeyId } }),
    ]);
    const exported = await stack.request('POST', `/orgs/${org.organizationId}/audit/exports`, { token: key });
    expect(exported.status).toBe(202);
    const { job } = (await exported.json()) as { job: { jobId: string } };
    expect(await auditRows(org.organizationId, 'audit.export_requested')).toEqual([
      { actor_user_id: null, actor_api_key_id: apiKeyId, target_id: job.jobId },
    ]);
    // A person's action still names the person.
    const byAdmin = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: 'chef@example.test', roleCode: 'Viewer' },
    });
    expect(byAdmin.status).toBe(201);
    const rows = await auditRows(org.organizationId, 'invite.created');
    expect(rows.map((row) => [row.actor_user_id, row.actor_api_key_id]).sort()).toEqual(
      [
        [null, apiKeyId],
        [org.adminId, null],
      ].sort(),
    );
  });

  it('without invites:write: 403 SCOPE_MISSING, no invite, no audit row, nothing counted', async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org, { scopes: ['invites:read'] });
    expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: key })).status).toBe(200);
    await lastUsedWritten(apiKeyId);
    const counters = async () => (await stack.redis.keys(`*:org:{${org.organizationId}}:*`)).sort();
    const before = await counters();
    resetCosts();
    const refused = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: key,
      body: { email: 'cook@example.test', roleCode: 'Viewer' },
    });
    expect(await answer(refused)).toEqual([403, 'SCOPE_MISSING']);
    // The check's one script read the entry and stopped at the scope: no PostgreSQL, no new key in the organisation's slot.
    expect(costs()).toEqual({ redis: 1, postgres: 0 });
    expect(await counters()).toEqual(before);
    expect(await auditRows(org.organizationId, 'invite.created')).toEqual([]);
  });
});

describe('revocation', () => {
  it('a revoked key is refused on its next request, and a rolled one once the overlap ends; the new key works at once', async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org);
    expect((await members(org.organizationId, key)).status).toBe(200);
    const rolled = await stack.request('POST', `/orgs/${org.organizationId}/api-keys/${apiKeyId}/roll`, {
      token: org.adminToken,
      body: { overlapSeconds: 60 },
    });
    const next = (await rolled.json()) as { apiKey: { apiKeyId: string }; key: string };
    expect((await members(org.organizationId, key)).status).toBe(200);
    expect((await members(org.organizationId, next.key)).status).toBe(200);
    nowMs += 60_000;
    expect(await answer(await members(org.organizationId, key))).toEqual([401, 'UNAUTHENTICATED']);
    expect((await members(org.organizationId, next.key)).status).toBe(200);
    expect(
      (await stack.request('DELETE', `/orgs/${org.organizationId}/api-keys/${next.apiKey.apiKeyId}`, { token: org.adminToken })).status,
    ).toBe(204);
    expect(await answer(await members(org.organizationId, next.key))).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('a scope taken away holds from the next request', async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org, { scopes: ['members:read', 'invites:read'] });
    expect((await members(org.organizationId, key)).status).toBe(200);
    await stack.request('PATCH', `/orgs/${org.organizationId}/api-keys/${apiKeyId}`, {
      token: org.adminToken,
      body: { scopes: ['invites:read'] },
    });
    expect(await answer(await members(org.organizationId, key))).toEqual([403, 'SCOPE_MISSING']);
  });

  it('an entry restored stale after the revocation is not used past a second; the organisation’s keys emptied are read again', async () => {
    const org = await stack.seedOrganization();
    const live = await makeKey(org);
    const { apiKeyId, key } = await makeKey(org);
    expect((await members(org.organizationId, key)).status).toBe(200);
    expect((await members(org.organizationId, live.key)).status).toBe(200);
    const entryKey = stack.deps.keys.apiKeyEntry(org.organizationId, await apiKeyHash(stack.config.indexHashKey, key));
    const before = await stack.redis.get(entryKey);
    expect(before).toContain(apiKeyId);
    expect(before).not.toContain(key);
    expect((await stack.request('DELETE', `/orgs/${org.organizationId}/api-keys/${apiKeyId}`, { token: org.adminToken })).status).toBe(204);
    expect(await answer(await members(org.organizationId, key))).toEqual([401, 'UNAUTHENTICATED']);
    // The store rolled back: the entry from before the revocation is back, as a replica that was behind would have it.
    await stack.redis.set(entryKey, before!, 'EX', 300);
    nextSecond();
    expect(await answer(await members(org.organizationId, key))).toEqual([401, 'UNAUTHENTICATED']);
    expect(await answer(await members(org.organizationId, key))).toEqual([401, 'UNAUTHENTICATED']);
    // Everything of the organisation's slot lost: the revoked key is still refused, the live one answered, from PostgreSQL.
    const keys = await stack.redis.keys(`*:org:{${org.organizationId}}:*`);
    if (keys.length > 0) await stack.redis.del(...keys);
    expect(await answer(await members(org.organizationId, key))).toEqual([401, 'UNAUTHENTICATED']);
    expect((await members(org.organizationId, live.key)).status).toBe(200);
  });

  it('a suspended organisation’s keys are refused within a second of the suspension', async () => {
    const org = await stack.seedOrganization();
    const { key } = await makeKey(org);
    expect((await members(org.organizationId, key)).status).toBe(200);
    await stack.db.query(`UPDATE organizations SET state = 'suspended', suspension_reason = 'test' WHERE id = $1`, [org.organizationId]);
    nextSecond();
    expect(await answer(await members(org.organizationId, key))).toEqual([403, 'TENANT_SUSPENDED']);
  });

  it('a deleted organisation’s keys are refused 403 FORBIDDEN within a second of the delete, on every route, for good', async () => {
    const org = await stack.seedOrganization();
    const { key } = await makeKey(org, { scopes: [...API_KEY_SCOPES] });
    expect((await members(org.organizationId, key)).status).toBe(200);
    const deleted = await stack.request('POST', `/ops/tenants/${org.organizationId}/delete`, {
      headers: { authorization: `Bearer ${operator.secret}` },
      body: { reason: 'contract ended' },
    });
    expect(deleted.status).toBe(200);
    nextSecond();
    expect(await answer(await members(org.organizationId, key))).toEqual([403, 'FORBIDDEN']);
    for (const path of ['invites', 'settings', 'webhook-endpoints', 'sign-in-policy']) {
      expect(await answer(await stack.request('GET', `/orgs/${org.organizationId}/${path}`, { token: key })), path).toEqual([
        403,
        'FORBIDDEN',
      ]);
    }
    // Its cached entry gone as well (a flush, an eviction): read from PostgreSQL, still refused.
    const keys = await stack.redis.keys(`*:org:{${org.organizationId}}:*`);
    if (keys.length > 0) await stack.redis.del(...keys);
    nextSecond();
    expect(await answer(await members(org.organizationId, key))).toEqual([403, 'FORBIDDEN']);
  });
});

describe('failing closed', () => {
  it('Redis not answering the check, or PostgreSQL a miss or the seq read: 503, never the route', async () => {
    const org = await stack.seedOrganization();
    const { key } = await makeKey(org);
    const warm = await makeKey(org);
    expect((await members(org.organizationId, warm.key)).status).toBe(200);
    stack.redisProxy.faults.set({ failCommands: ['evalsha', 'eval'] });
    try {
      expect(await answer(await members(org.organizationId, warm.key))).toEqual([503, 'REVOCATION_UNAVAILABLE']);
    } finally {
      stack.redisProxy.faults.clear();
    }
    stack.neonProxy.faults.set({ refuse: true });
    try {
      // A miss needs PostgreSQL; so does a warm entry once the isolate's view of the organisation is a second old.
      expect(await answer(await members(org.organizationId, key))).toEqual([503, 'REVOCATION_UNAVAILABLE']);
      nextSecond();
      expect(await answer(await members(org.organizationId, warm.key))).toEqual([503, 'REVOCATION_UNAVAILABLE']);
    } finally {
      stack.neonProxy.faults.clear();
    }
    expect(stack.logs.filter((line) => line.includes('api_key_check_failed')).length).toBeGreaterThanOrEqual(3);
    expect((await members(org.organizationId, key)).status).toBe(200);
  });
});

describe('unknown keys', () => {
  it('cost PostgreSQL once, then nothing but the one script; one address is stopped after 60 refusals', async () => {
    const org = await stack.seedOrganization();
    const { key } = await makeKey(org);
    const ip = '127.9.8.7';
    const unknown = key.slice(0, 4) + 'Z'.repeat(32);
    const { apiKeyChecksum } = await import('../../lib/auth/api-keys/key-format.ts');
    const made = `${unknown}${apiKeyChecksum(unknown.slice(4))}`;
    expect(await answer(await members(org.organizationId, made, ip))).toEqual([401, 'UNAUTHENTICATED']);
    resetCosts();
    expect(await answer(await members(org.organizationId, made, ip))).toEqual([401, 'UNAUTHENTICATED']);
    expect(costs()).toEqual({ redis: 1, postgres: 0 });
    for (let i = 2; i < 60; i++) await members(org.organizationId, made, ip);
    const limited = await members(org.organizationId, made, ip);
    expect(await answer(limited)).toEqual([429, 'RATE_LIMITED']);
    // The address's limit is its own: the real key from another address still answers.
    expect((await members(org.organizationId, key, '127.9.8.8')).status).toBe(200);
  });

  it('named with a new organisation each time: one address is stopped after 60 refusals that read PostgreSQL, then reads none', async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org);
    const { apiKeyChecksum } = await import('../../lib/auth/api-keys/key-format.ts');
    const forged = `rsk_${'F'.repeat(32)}${apiKeyChecksum('F'.repeat(32))}`;
    // An address of its own per run: the counter is the platform's, kept for its 15-minute window.
    const octet = () => 1 + Math.floor(Math.random() * 250);
    const ip = `127.${octet()}.${octet()}.${octet()}`;
    const others = [await stack.seedOrganization(), await stack.seedOrganization()];
    resetCosts();
    // Two real organisations (the key unknown in each) and made-up ones: every refusal costs PostgreSQL in a new slot.
    for (const other of others) expect(await answer(await members(other.organizationId, forged, ip))).toEqual([401, 'UNAUTHENTICATED']);
    for (let i = others.length; i < 60; i++) {
      expect(await answer(await members(crypto.randomUUID(), forged, ip))).toEqual([403, 'FORBIDDEN']);
    }
    expect(costs().postgres).toBeGreaterThanOrEqual(60);
    resetCosts();
    for (const orgId of [crypto.randomUUID(), crypto.randomUUID(), org.organizationId]) {
      const limited = await members(orgId, forged, ip);
      expect(await answer(limited)).toEqual([429, 'RATE_LIMITED']);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Past the limit: the organisation's script and the gate's one GET each, and no PostgreSQL.
    expect(costs()).toEqual({ redis: 6, postgres: 0 });
    // A hit whose organisation's view is fresh never reads the gate: the real key answers from the same address.
    expect((await members(org.organizationId, key, '127.0.0.1')).status).toBe(200);
    await lastUsedWritten(apiKeyId);
    resetCosts();
    expect((await members(org.organizationId, key, ip)).status).toBe(200);
    expect(costs()).toEqual({ redis: 1, postgres: 1 });
    // Another address is not held back.
    expect(await answer(await members(crypto.randomUUID(), forged, '127.0.0.2'))).toEqual([403, 'FORBIDDEN']);
  });
});

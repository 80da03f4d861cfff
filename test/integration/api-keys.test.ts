// API keys as their admins manage them: made with the key shown once and only its keyed hash stored, listed a page at a
// time, renamed and rescoped, revoked, rolled with an overlap; each change audited once; bad input refused; other
// organisations' admins, sessions bound elsewhere and keys themselves refused, spending nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../lib/auth/api-keys/key-hash.ts';
import { memberFixtures } from '../support/members.ts';
import { errorCode } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

// A clock the test moves: expiries and the roll's overlap are computed from exactly the instant the app sees.
let nowMs = Date.parse('2026-03-01T12:00:00.000Z');
const clock = { now: () => nowMs };

let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  stack = await startStack({ deps: { clock } });
  m = memberFixtures(stack);
});
afterAll(async () => stack?.close());

interface ApiKeyBody {
  apiKey: {
    apiKeyId: string;
    name: string;
    prefix: string;
    scopes: string[];
    createdAt: string;
    expiresAt: string | null;
    lastUsedAt: string | null;
    createdBy: string;
    rateLimitPerMinute: number | null;
  };
  key: string;
}

const base = (orgId: string) => `/orgs/${orgId}/api-keys`;
const create = (orgId: string, token: string, body: unknown) => stack.request('POST', base(orgId), { token, body });

async function made(orgId: string, token: string, body: unknown = { name: 'stock sync', scopes: ['members:read'] }): Promise<ApiKeyBody> {
  const response = await create(orgId, token, body);
  expect(response.status).toBe(201);
  return (await response.json()) as ApiKeyBody;
}

async function auditOf(organizationId: string) {
  const result = await stack.db.query(
    `SELECT action, actor_user_id, actor_api_key_id, target_id, details FROM audit_events
      WHERE organization_id = $1 AND action LIKE 'api_key.%' ORDER BY occurred_at, id`,
    [organizationId],
  );
  return result.rows as Array<{
    action: string;
    actor_user_id: string;
    actor_api_key_id: string | null;
    target_id: string;
    details: object;
  }>;
}

describe('POST, GET, PATCH and DELETE /orgs/{orgId}/api-keys', () => {
  it('makes a key shown once and stored only as its keyed hash, reads it back, renames and rescopes it, revokes it; each audited once', async () => {
    const org = await stack.seedOrganization();
    const body = await made(org.organizationId, org.adminToken, {
      name: 'stock sync',
      scopes: ['syrve:read', 'members:read'],
      expiresAt: '2026-04-01T00:00:00+02:00',
      rateLimitPerMinute: 120,
    });
    expect(body.key).toMatch(/^rsk_[0-9A-Za-z]{38}$/);
    expect(body.apiKey).toEqual({
      apiKeyId: expect.any(String),
      name: 'stock sync',
      prefix: body.key.slice(0, 12),
      scopes: ['members:read', 'syrve:read'],
      createdAt: '2026-03-01T12:00:00.000Z',
      expiresAt: '2026-03-31T22:00:00.000Z',
      lastUsedAt: null,
      createdBy: org.adminId,
      rateLimitPerMinute: 120,
    });
    const { apiKeyId } = body.apiKey;
    const row = await stack.db.query('SELECT key_hash, prefix, organization_id, version FROM api_keys WHERE id = $1', [apiKeyId]);
    expect(row.rows[0]).toEqual({
      key_hash: await apiKeyHash(stack.config.indexHashKey, body.key),
      prefix: body.key.slice(0, 12),
      organization_id: org.organizationId,
      version: '1',
    });

    const read = await stack.request('GET', `${base(org.organizationId)}/${apiKeyId}`, { token: org.adminToken });
    expect([read.status, await read.json()]).toEqual([200, { apiKey: body.apiKey }]);

    const patched = await stack.request('PATCH', `${base(org.organizationId)}/${apiKeyId.toUpperCase()}`, {
      token: org.adminToken,
      body: { name: 'nightly sync', scopes: ['invites:read'] },
    });
    expect([patched.status, await patched.json()]).toEqual([
      200,
      { apiKey: { ...body.apiKey, name: 'nightly sync', scopes: ['invites:read'] } },
    ]);
    // The same change again changes nothing and is not audited again.
    const again = await stack.request('PATCH', `${base(org.organizationId)}/${apiKeyId}`, {
      token: org.adminToken,
      body: { scopes: ['invites:read'] },
    });
    expect(again.status).toBe(200);

    const revoked = await stack.request('DELETE', `${base(org.organizationId)}/${apiKeyId}`, { token: org.adminToken });
    expect(revoked.status).toBe(204);
    for (const response of [
      await stack.request('GET', `${base(org.organizationId)}/${apiKeyId}`, { token: org.adminToken }),
      await stack.request('DELETE', `${base(org.organizationId)}/${apiKeyId}`, { token: org.adminToken }),
      await stack.request('PATCH', `${base(org.organizationId)}/${apiKeyId}`, { token: org.adminToken, body: { name: 'x' } }),
      await stack.request('POST', `${base(org.organizationId)}/${apiKeyId}/roll`, { token: org.adminToken, body: { overlapSeconds: 60 } }),
    ]) {
      expect([response.status, await errorCode(response)]).toEqual([404, 'NOT_FOUND']);
    }
    const list = await stack.request('GET', base(org.organizationId), { token: org.adminToken });
    expect(await list.json()).toEqual({ apiKeys: [], nextCursor: null });
    const stored = await stack.db.query('SELECT revoked_at, version FROM api_keys WHERE id = $1', [apiKeyId]);
    expect(stored.rows[0]).toEqual({ revoked_at: new Date(nowMs), version: '3' });

    expect(await auditOf(org.organizationId)).toEqual([
      {
        action: 'api_key.created',
        actor_user_id: org.adminId,
        actor_api_key_id: null,
        target_id: apiKeyId,
        details: { scopes: 'members:read,syrve:read', expires: true },
      },
      {
        action: 'api_key.updated',
        actor_user_id: org.adminId,
        actor_api_key_id: null,
        target_id: apiKeyId,
        details: { renamed: true, scopes: 'invites:read' },
      },
      { action: 'api_key.revoked', actor_user_id: org.adminId, actor_api_key_id: null, target_id: apiKeyId, details: {} },
    ]);
  });

  it('lists the keys not revoked in the order they were made, one page at a time', async () => {
    const org = await stack.seedOrganization();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      nowMs += 1_000;
      ids.push((await made(org.organizationId, org.adminToken, { name: `key ${i}`, scopes: ['members:read'] })).apiKey.apiKeyId);
    }
    expect((await stack.request('DELETE', `${base(org.organizationId)}/${ids[1]}`, { token: org.adminToken })).status).toBe(204);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
      const page = (await (await stack.request('GET', `${base(org.organizationId)}${query}`, { token: org.adminToken })).json()) as {
        apiKeys: Array<{ apiKeyId: string }>;
        nextCursor: string | null;
      };
      seen.push(...page.apiKeys.map((key) => key.apiKeyId));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual([ids[0], ids[2], ids[3], ids[4]]);
    expect(pages).toBe(2);
    const bad = await stack.request('GET', `${base(org.organizationId)}?cursor=bm90LWEtY3Vyc29y`, { token: org.adminToken });
    expect([bad.status, await errorCode(bad)]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('refuses bad input before anything is written', async () => {
    const org = await stack.seedOrganization();
    for (const body of [
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['members:admin'] },
      { name: 'x', scopes: ['members:read', 'members:read'] },
      { name: '', scopes: ['members:read'] },
      { name: 'x', scopes: ['members:read'], expiresAt: '2026-03-01T11:59:59Z' },
      // Of the ISO shape, but past 9999 in UTC: neither toISOString nor PostgreSQL reads it back as the same instant.
      { name: 'x', scopes: ['members:read'], expiresAt: '9999-12-31T23:59:59.999-23:59' },
      { name: 'x', scopes: ['members:read'], rateLimitPerMinute: 0 },
      { name: 'x', scopes: ['members:read'], key: 'rsk_chosen' },
    ]) {
      const response = await create(org.organizationId, org.adminToken, body);
      expect([response.status, await errorCode(response)], JSON.stringify(body)).toEqual([400, 'VALIDATION_FAILED']);
    }
    const { apiKey } = await made(org.organizationId, org.adminToken);
    const path = `${base(org.organizationId)}/${apiKey.apiKeyId}`;
    for (const response of [
      await stack.request('PATCH', path, { token: org.adminToken, body: {} }),
      await stack.request('POST', `${path}/roll`, { token: org.adminToken, body: { overlapSeconds: 86_401 } }),
      await stack.request('POST', `${path}/roll`, { token: org.adminToken, body: {} }),
    ]) {
      expect([response.status, await errorCode(response)]).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect(
      (await stack.db.query('SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1', [org.organizationId])).rows[0],
    ).toEqual({
      n: 1,
    });
  });
});

describe('POST /orgs/{orgId}/api-keys/{apiKeyId}/roll', () => {
  it('answers a new key with the old one’s name, scopes and limit; the old one ends when the overlap does; a second roll of it is refused', async () => {
    const org = await stack.seedOrganization();
    const old = await made(org.organizationId, org.adminToken, { name: 'pos', scopes: ['invites:write'], rateLimitPerMinute: 30 });
    nowMs += 60_000;
    const rollPath = `${base(org.organizationId)}/${old.apiKey.apiKeyId}/roll`;
    const rolled = await stack.request('POST', rollPath, { token: org.adminToken, body: { overlapSeconds: 3_600 } });
    expect(rolled.status).toBe(200);
    const next = (await rolled.json()) as ApiKeyBody;
    expect(next.key).not.toBe(old.key);
    expect(next.apiKey).toEqual({
      ...old.apiKey,
      apiKeyId: expect.any(String),
      prefix: next.key.slice(0, 12),
      createdAt: new Date(nowMs).toISOString(),
    });
    const before = await stack.request('GET', `${base(org.organizationId)}/${old.apiKey.apiKeyId}`, { token: org.adminToken });
    expect(((await before.json()) as ApiKeyBody).apiKey.expiresAt).toBe(new Date(nowMs + 3_600_000).toISOString());
    const rows = await stack.db.query('SELECT id, rolled_to, version FROM api_keys WHERE organization_id = $1 ORDER BY created_at', [
      org.organizationId,
    ]);
    expect(rows.rows).toEqual([
      { id: old.apiKey.apiKeyId, rolled_to: next.apiKey.apiKeyId, version: '2' },
      { id: next.apiKey.apiKeyId, rolled_to: null, version: '1' },
    ]);
    const twice = await stack.request('POST', rollPath, { token: org.adminToken, body: { overlapSeconds: 60 } });
    expect([twice.status, await errorCode(twice)]).toEqual([409, 'API_KEY_ROLLED']);
    // Once the overlap has ended the old key is expired: nothing to roll.
    nowMs += 3_600_000;
    const late = await stack.request('POST', rollPath, { token: org.adminToken, body: { overlapSeconds: 60 } });
    expect([late.status, await errorCode(late)]).toEqual([404, 'NOT_FOUND']);
    expect((await auditOf(org.organizationId)).map((row) => [row.action, row.target_id, row.details])).toEqual([
      ['api_key.created', old.apiKey.apiKeyId, { scopes: 'invites:write', expires: false }],
      ['api_key.rolled', next.apiKey.apiKeyId, { rolledFrom: old.apiKey.apiKeyId, overlapSeconds: 3_600 }],
    ]);
  });

  it('never pushes an earlier expiry back, and an overlap of 0 ends the old key now; concurrent rolls make one successor', async () => {
    const org = await stack.seedOrganization();
    const soon = await made(org.organizationId, org.adminToken, {
      name: 'soon',
      scopes: ['members:read'],
      expiresAt: new Date(nowMs + 600_000).toISOString(),
    });
    const rolled = await stack.request('POST', `${base(org.organizationId)}/${soon.apiKey.apiKeyId}/roll`, {
      token: org.adminToken,
      body: { overlapSeconds: 86_400 },
    });
    expect(((await rolled.json()) as ApiKeyBody).apiKey.expiresAt).toBe(new Date(nowMs + 600_000).toISOString());
    const ended = await stack.db.query('SELECT expires_at FROM api_keys WHERE id = $1', [soon.apiKey.apiKeyId]);
    expect(ended.rows[0]).toEqual({ expires_at: new Date(nowMs + 600_000) });

    const raced = await made(org.organizationId, org.adminToken);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        stack.request('POST', `${base(org.organizationId)}/${raced.apiKey.apiKeyId}/roll`, {
          token: org.adminToken,
          body: { overlapSeconds: 60 },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
    const count = await stack.db.query('SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1', [org.organizationId]);
    expect(count.rows[0]).toEqual({ n: 4 });

    // An overlap of 0 ends the old key at once: expired, it has nothing left to roll.
    const ending = await made(org.organizationId, org.adminToken);
    const path = `${base(org.organizationId)}/${ending.apiKey.apiKeyId}/roll`;
    expect((await stack.request('POST', path, { token: org.adminToken, body: { overlapSeconds: 0 } })).status).toBe(200);
    const old = await stack.db.query('SELECT expires_at FROM api_keys WHERE id = $1', [ending.apiKey.apiKeyId]);
    expect(old.rows[0]).toEqual({ expires_at: new Date(nowMs) });
    const again = await stack.request('POST', path, { token: org.adminToken, body: { overlapSeconds: 0 } });
    expect([again.status, await errorCode(again)]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('who may manage keys', () => {
  it('refuses a Viewer, another organisation’s admin, a session bound to another organisation and a key, spending nothing', async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const { apiKey, key } = await made(org.organizationId, org.adminToken);
    const viewer = await m.addMember(org.organizationId, 'Viewer');
    const path = `${base(org.organizationId)}/${apiKey.apiKeyId}`;
    const calls = (token: string) => [
      () => create(org.organizationId, token, { name: 'x', scopes: ['members:read'] }),
      () => stack.request('GET', base(org.organizationId), { token }),
      () => stack.request('GET', path, { token }),
      () => stack.request('PATCH', path, { token, body: { scopes: ['members:write'] } }),
      () => stack.request('DELETE', path, { token }),
      () => stack.request('POST', `${path}/roll`, { token, body: { overlapSeconds: 0 } }),
    ];
    for (const token of [viewer.token, other.adminToken]) {
      for (const call of calls(token)) {
        const response = await call();
        expect([response.status, await errorCode(response)]).toEqual([403, 'FORBIDDEN']);
      }
    }
    // An admin of both, its session bound to the other organisation: refused on the claim alone, before any store.
    await m.grant(other.adminId, org.organizationId, 'OrganizationAdmin');
    const bound = await stack.token({ userId: other.adminId, organizationId: other.organizationId });
    stack.redisProxy.stats.reset();
    stack.neonProxy.stats.reset();
    for (const call of calls(bound)) {
      const response = await call();
      expect([response.status, await errorCode(response)]).toEqual([403, 'FORBIDDEN']);
    }
    expect({ redis: stack.redisProxy.stats.commands, postgres: stack.neonProxy.stats.httpRequests }).toEqual({ redis: 0, postgres: 0 });
    // A key never makes, changes, rolls or revokes keys, its own included.
    for (const call of calls(key)) {
      const response = await call();
      expect([response.status, await errorCode(response)]).toEqual([403, 'SCOPE_MISSING']);
    }
    const rows = await stack.db.query('SELECT id, name, scopes, revoked_at, rolled_to FROM api_keys WHERE organization_id = $1', [
      org.organizationId,
    ]);
    expect(rows.rows).toEqual([{ id: apiKey.apiKeyId, name: 'stock sync', scopes: ['members:read'], revoked_at: null, rolled_to: null }]);
    expect((await auditOf(org.organizationId)).map((row) => row.action)).toEqual(['api_key.created']);
    expect(await auditOf(other.organizationId)).toEqual([]);
  });
});

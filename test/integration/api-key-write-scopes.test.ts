// API keys on the organisation's write routes beyond invites and exports: each scope lets a key act with the key named
// as the audit actor, the rules that guard the organisation (the last admin) hold when a key acts, and a key without
// the scope, or of another organisation, is refused having spent nothing there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDoh, type FakeDoh } from '../../local/emulators/doh/index.ts';
import { API_KEY_SCOPES } from '../../lib/auth/api-keys/scopes.ts';
import { memberFixtures } from '../support/members.ts';
import { connectFake, startFakeSyrve, type FakeSyrve } from '../support/syrve.ts';
import { errorCode, passwordSignIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let m: ReturnType<typeof memberFixtures>;
let fake: FakeSyrve;
let doh: FakeDoh;
beforeAll(async () => {
  doh = await startFakeDoh();
  stack = await startStack({
    env: { INVITE_LINK_BASE: 'https://app.example.test/invite', DOMAIN_VERIFY_DOH_URL: doh.url },
    deps: {
      notifier: { send: async () => undefined },
      // A webhook endpoint's host resolves to a public address; nothing is ever connected to.
      resolveHost: async (hostname: string) => (hostname === 'hooks.public.example.com' ? ['93.184.216.34'] : []),
    },
  });
  m = memberFixtures(stack);
  fake = await startFakeSyrve();
});
afterAll(async () => {
  await fake?.close();
  await stack?.close();
  await doh?.close();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

async function makeKey(org: Org, scopes: string[]): Promise<{ apiKeyId: string; key: string }> {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/api-keys`, {
    token: org.adminToken,
    body: { name: 'sync', scopes },
  });
  expect(response.status).toBe(201);
  const made = (await response.json()) as { apiKey: { apiKeyId: string }; key: string };
  return { apiKeyId: made.apiKey.apiKeyId, key: made.key };
}

async function answer(response: Response): Promise<[number, string | undefined]> {
  return [response.status, await errorCode(response.clone())];
}

const auditRows = async (orgId: string, action: string) =>
  (
    await stack.db.query<{ actor_user_id: string | null; actor_api_key_id: string | null; target_id: string }>(
      'SELECT actor_user_id, actor_api_key_id, target_id FROM audit_events WHERE organization_id = $1 AND action = $2 ORDER BY occurred_at, id',
      [orgId, action],
    )
  ).rows;

/** Every audit row of the organisation a write could have added, as a count per action. */
const auditCounts = async (orgId: string) =>
  (
    await stack.db.query<{ action: string; n: string }>(
      'SELECT action, count(*) AS n FROM audit_events WHERE organization_id = $1 GROUP BY action ORDER BY action',
      [orgId],
    )
  ).rows;

/** Waits (with a deadline) for the lastUsedAt write a key's first request sends after its answer, so it is not counted later. */
async function lastUsedWritten(apiKeyId: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const used: unknown =
      (await stack.db.query('SELECT last_used_at FROM api_keys WHERE id = $1', [apiKeyId])).rows[0]?.last_used_at ?? null;
    if (used !== null) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Sends each request with a key that lacks their scope (its entry warm, its lastUsedAt written) and expects 403
 * SCOPE_MISSING from the check's one script: no PostgreSQL, no new Redis key in the organisation's slot, no audit row.
 */
async function refusedWithoutScope(org: Org, heldScope: string, requests: Array<[string, string, Record<string, unknown>?]>) {
  const { apiKeyId, key } = await makeKey(org, [heldScope]);
  const warm = {
    'members:read': 'members',
    'syrve:read': 'syrve/connections',
    'settings:read': 'settings',
  }[heldScope];
  expect((await stack.request('GET', `/orgs/${org.organizationId}/${warm}`, { token: key })).status).toBe(200);
  await lastUsedWritten(apiKeyId);
  const slot = async () => (await stack.redis.keys(`*:org:{${org.organizationId}}:*`)).sort();
  const before = { keys: await slot(), audit: await auditCounts(org.organizationId) };
  stack.redisProxy.stats.reset();
  stack.neonProxy.stats.reset();
  for (const [method, path, body] of requests) {
    const response = await stack.request(method, path, { token: key, ...(body !== undefined ? { body } : {}) });
    expect(await answer(response), `${method} ${path}`).toEqual([403, 'SCOPE_MISSING']);
  }
  expect({ redis: stack.redisProxy.stats.commands, postgres: stack.neonProxy.stats.httpRequests }).toEqual({
    redis: requests.length,
    postgres: 0,
  });
  expect({ keys: await slot(), audit: await auditCounts(org.organizationId) }).toEqual(before);
}

/** Another organisation's key holding every scope: 401 as an unknown key here, and nothing of this organisation changes. */
async function refusedForOtherOrganisation(org: Org, scopes: string[], requests: Array<[string, string, Record<string, unknown>?]>) {
  const other = await stack.seedOrganization();
  const { key } = await makeKey(other, scopes);
  const before = await auditCounts(org.organizationId);
  for (const [method, path, body] of requests) {
    const response = await stack.request(method, path, { token: key, ...(body !== undefined ? { body } : {}) });
    expect(await answer(response), `${method} ${path}`).toEqual([401, 'UNAUTHENTICATED']);
  }
  expect(await auditCounts(org.organizationId)).toEqual(before);
}

describe('members:write', () => {
  it("changes a role and removes a member; the audit rows, and the cancels of the removed member's invites, name the key", async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org, ['members:write']);
    const member = await m.addMember(org.organizationId, 'Viewer');
    const changed = await m.changeRole(org.organizationId, member.userId, key, { roleCode: 'Accountant' });
    expect(changed.status).toBe(200);
    expect(await m.rolesOf(member.userId, org.organizationId)).toEqual([{ role_code: 'Accountant', location_id: null }]);
    expect(await auditRows(org.organizationId, 'member.role_changed')).toEqual([
      { actor_user_id: null, actor_api_key_id: apiKeyId, target_id: member.userId },
    ]);
    // An admin with an invite of their own, removed by the key: the removal and the invite's cancel name the key.
    const inviter = await m.addMember(org.organizationId, 'OrganizationAdmin');
    const invited = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: inviter.token,
      body: { email: 'cook@example.test', roleCode: 'Viewer' },
    });
    expect(invited.status).toBe(201);
    const { invite } = (await invited.json()) as { invite: { inviteId: string } };
    expect((await m.remove(org.organizationId, inviter.userId, key)).status).toBe(204);
    expect(await m.rolesOf(inviter.userId, org.organizationId)).toEqual([]);
    expect(await auditRows(org.organizationId, 'member.removed')).toEqual([
      { actor_user_id: null, actor_api_key_id: apiKeyId, target_id: inviter.userId },
    ]);
    expect(await auditRows(org.organizationId, 'invite.cancelled')).toEqual([
      { actor_user_id: null, actor_api_key_id: apiKeyId, target_id: invite.inviteId },
    ]);
  });

  it('keeps the last organisation-wide admin, the one who made the key included, and never acts at one Outlet', async () => {
    const org = await stack.seedOrganization();
    const { key } = await makeKey(org, ['members:write']);
    const before = await auditCounts(org.organizationId);
    expect(await answer(await m.changeRole(org.organizationId, org.adminId, key, { roleCode: 'Viewer' }))).toEqual([409, 'LAST_ADMIN']);
    expect(await answer(await m.remove(org.organizationId, org.adminId, key))).toEqual([409, 'LAST_ADMIN']);
    const member = await m.addMember(org.organizationId, 'Viewer', org.locationId);
    expect(
      await answer(await m.changeRole(org.organizationId, member.userId, key, { roleCode: 'Accountant', locationId: org.locationId })),
    ).toEqual([403, 'FORBIDDEN']);
    expect(await m.rolesOf(org.adminId, org.organizationId)).toEqual([{ role_code: 'OrganizationAdmin', location_id: null }]);
    expect(await m.rolesOf(member.userId, org.organizationId)).toEqual([{ role_code: 'Viewer', location_id: org.locationId }]);
    expect(await auditCounts(org.organizationId)).toEqual(before);
  });

  it("without it, or another organisation's key: refused, nothing spent or written", async () => {
    const org = await stack.seedOrganization();
    const member = await m.addMember(org.organizationId, 'Viewer');
    const path = `/orgs/${org.organizationId}/members/${member.userId}`;
    const requests: Array<[string, string, Record<string, unknown>?]> = [
      ['PATCH', path, { roleCode: 'Accountant' }],
      ['DELETE', path],
    ];
    await refusedWithoutScope(org, 'members:read', requests);
    await refusedForOtherOrganisation(org, ['members:write'], requests);
    expect(await m.rolesOf(member.userId, org.organizationId)).toEqual([{ role_code: 'Viewer', location_id: null }]);
  });
});

describe('sessions:write', () => {
  it("revokes a member's sessions here, audited with the key as the actor", async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org, ['sessions:write']);
    const member = await m.addMember(org.organizationId, 'Viewer');
    const signedIn = await (await passwordSignIn(stack, member))(org.organizationId);
    const revoked = await stack.request('POST', `/orgs/${org.organizationId}/members/${member.userId}/sessions/revoke`, { token: key });
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { revoked: number }).revoked).toBe(1);
    expect((await stack.request('GET', '/auth/sessions', { token: signedIn.accessToken })).status).toBe(401);
    expect(await auditRows(org.organizationId, 'session.revoked_by_admin')).toEqual([
      { actor_user_id: null, actor_api_key_id: apiKeyId, target_id: member.userId },
    ]);
  });

  it("without it, or another organisation's key: refused, nothing spent or written", async () => {
    const org = await stack.seedOrganization();
    const member = await m.addMember(org.organizationId, 'Viewer');
    const signedIn = await (await passwordSignIn(stack, member))(org.organizationId);
    const requests: Array<[string, string, Record<string, unknown>?]> = [
      ['POST', `/orgs/${org.organizationId}/members/${member.userId}/sessions/revoke`],
    ];
    await refusedWithoutScope(org, 'members:read', requests);
    await refusedForOtherOrganisation(org, ['sessions:write'], requests);
    expect((await stack.request('GET', '/auth/sessions', { token: signedIn.accessToken })).status).toBe(200);
  });
});

describe('syrve:write', () => {
  it('creates, tests, disables and enables a connection; each audit row names the key', async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org, ['syrve:write']);
    fake.setAccount('machine', 'machine-pw');
    const base = `/orgs/${org.organizationId}/syrve/connections`;
    const created = await stack.request('POST', base, {
      token: key,
      body: { name: 'By key', baseUrl: fake.url, login: 'machine', password: 'machine-pw' },
    });
    expect(created.status).toBe(201);
    const { connection } = (await created.json()) as { connection: { connectionId: string } };
    const byKey = [{ actor_user_id: null, actor_api_key_id: apiKeyId, target_id: connection.connectionId }];
    expect(await auditRows(org.organizationId, 'syrve.connection_created')).toEqual(byKey);
    expect((await stack.request('POST', `${base}/${connection.connectionId}/test`, { token: key })).status).toBe(200);
    expect((await stack.request('DELETE', `${base}/${connection.connectionId}`, { token: key })).status).toBe(204);
    expect(await auditRows(org.organizationId, 'syrve.connection_disabled')).toEqual(byKey);
    expect((await stack.request('POST', `${base}/${connection.connectionId}/enable`, { token: key })).status).toBe(204);
    expect(await auditRows(org.organizationId, 'syrve.connection_enabled')).toEqual(byKey);
  });

  it("without it, or another organisation's key: refused, nothing spent or written", async () => {
    const org = await stack.seedOrganization();
    const connection = await connectFake(stack, org, fake);
    const base = `/orgs/${org.organizationId}/syrve/connections`;
    const requests: Array<[string, string, Record<string, unknown>?]> = [
      ['POST', base, { name: 'By key', baseUrl: fake.url, login: 'machine', password: 'machine-pw' }],
      ['POST', `${base}/${connection.connectionId}/test`],
      ['DELETE', `${base}/${connection.connectionId}`],
      ['POST', `${base}/${connection.connectionId}/enable`],
    ];
    await refusedWithoutScope(org, 'syrve:read', requests);
    await refusedForOtherOrganisation(org, ['syrve:write'], requests);
    const rows = await stack.db.query('SELECT enabled FROM syrve_connections WHERE organization_id = $1', [org.organizationId]);
    expect(rows.rows).toEqual([{ enabled: true }]);
  });
});

describe('syrve:read', () => {
  it("reads a connection's stores through the shared session and its runtime state; without it, refused", async () => {
    const org = await stack.seedOrganization();
    const connection = await connectFake(stack, org, fake);
    const base = `/orgs/${org.organizationId}/syrve/connections/${connection.connectionId}`;
    const { key } = await makeKey(org, ['syrve:read']);
    const stores = await stack.request('GET', `${base}/stores`, { token: key });
    expect(stores.status).toBe(200);
    expect(((await stores.json()) as { stores: unknown[] }).stores.length).toBeGreaterThan(0);
    const runtime = await stack.request('GET', `${base}/runtime`, { token: key });
    expect(runtime.status).toBe(200);
    expect(await runtime.json()).toHaveProperty('session');
    await refusedWithoutScope(org, 'members:read', [
      ['GET', `${base}/stores`],
      ['GET', `${base}/runtime`],
    ]);
  });
});

describe('settings:write', () => {
  it('changes the branding, claims a domain and verifies it; each audit row names the key', async () => {
    const org = await stack.seedOrganization();
    const { apiKeyId, key } = await makeKey(org, ['settings:write', 'settings:read']);
    const byKey = [{ actor_user_id: null, actor_api_key_id: apiKeyId, target_id: org.organizationId }];
    const branded = await stack.request('PATCH', `/orgs/${org.organizationId}/branding`, { token: key, body: { displayName: 'By key' } });
    expect(branded.status).toBe(200);
    expect(await auditRows(org.organizationId, 'tenant.branding_updated')).toEqual(byKey);
    const domain = `key-${crypto.randomUUID().slice(0, 8)}.example`;
    const put = await stack.request('PUT', `/orgs/${org.organizationId}/domains`, { token: key, body: { domains: [domain] } });
    expect(put.status).toBe(200);
    expect(await auditRows(org.organizationId, 'tenant.domains_updated')).toEqual(byKey);
    const listed = (await (await stack.request('GET', `/orgs/${org.organizationId}/domains`, { token: key })).json()) as {
      domains: Array<{ domain: string; txtRecord: { name: string; value: string } }>;
    };
    const record = listed.domains.find((entry) => entry.domain === domain)!.txtRecord;
    doh.records.set(record.name, [record.value]);
    expect((await stack.request('POST', `/orgs/${org.organizationId}/domains/${domain}/verify`, { token: key })).status).toBe(200);
    expect(await auditRows(org.organizationId, 'tenant.domain_verified')).toEqual(byKey);
  });

  it("without it, or another organisation's key: refused, nothing spent or written; the sign-in policy refuses every key", async () => {
    const org = await stack.seedOrganization();
    const requests: Array<[string, string, Record<string, unknown>?]> = [
      ['PATCH', `/orgs/${org.organizationId}/branding`, { displayName: 'By key' }],
      ['PUT', `/orgs/${org.organizationId}/domains`, { domains: ['refused.example'] }],
      ['POST', `/orgs/${org.organizationId}/domains/refused.example/verify`],
    ];
    await refusedWithoutScope(org, 'settings:read', requests);
    await refusedForOtherOrganisation(org, ['settings:write'], requests);
    // Even a key holding every scope: the policy decides how people sign in (docs/design/api-keys.md#scopes).
    const { key } = await makeKey(org, [...API_KEY_SCOPES]);
    const policy = await stack.request('PUT', `/orgs/${org.organizationId}/sign-in-policy`, {
      token: key,
      body: { requireMfa: false, allowedMethods: ['password'] },
    });
    expect(await answer(policy)).toEqual([403, 'SCOPE_MISSING']);
    expect(await auditRows(org.organizationId, 'policy.changed')).toEqual([]);
  });
});

describe('webhooks:read', () => {
  it("lists and reads the endpoints and an endpoint's deliveries, never a secret; no key reaches a write", async () => {
    const org = await stack.seedOrganization();
    const base = `/orgs/${org.organizationId}/webhook-endpoints`;
    const made = await stack.request('POST', base, {
      token: org.adminToken,
      body: { url: 'https://hooks.public.example.com/runstate', events: ['invite.expired'] },
    });
    expect(made.status).toBe(201);
    const { endpoint, secret } = (await made.json()) as { endpoint: { endpointId: string }; secret: string };
    const { key } = await makeKey(org, ['webhooks:read']);
    const reads = [base, `${base}/${endpoint.endpointId}`, `${base}/${endpoint.endpointId}/deliveries`];
    for (const path of reads) {
      const response = await stack.request('GET', path, { token: key });
      expect(response.status, path).toBe(200);
      const text = await response.text();
      expect(text, path).not.toContain(secret);
      if (path !== reads[2]) expect(text, path).toContain(endpoint.endpointId);
    }
    // The writes hand out or redirect what a signing secret signs: a person's only, whatever the key holds.
    const every = await makeKey(org, [...API_KEY_SCOPES]);
    const before = await auditCounts(org.organizationId);
    for (const [method, path, body] of [
      ['POST', base, { url: 'https://hooks.public.example.com/other', events: ['invite.expired'] }],
      ['PATCH', `${base}/${endpoint.endpointId}`, { description: 'by key' }],
      ['DELETE', `${base}/${endpoint.endpointId}`],
      ['POST', `${base}/${endpoint.endpointId}/rotate-secret`],
      ['POST', `${base}/${endpoint.endpointId}/deliveries/${crypto.randomUUID()}/retry`],
    ] as Array<[string, string, Record<string, unknown>?]>) {
      const response = await stack.request(method, path, { token: every.key, ...(body !== undefined ? { body } : {}) });
      expect(await answer(response), `${method} ${path}`).toEqual([403, 'SCOPE_MISSING']);
    }
    expect(await auditCounts(org.organizationId)).toEqual(before);
  });

  it("without it, or another organisation's key: refused, nothing spent", async () => {
    const org = await stack.seedOrganization();
    const base = `/orgs/${org.organizationId}/webhook-endpoints`;
    const id = crypto.randomUUID();
    const requests: Array<[string, string, Record<string, unknown>?]> = [
      ['GET', base],
      ['GET', `${base}/${id}`],
      ['GET', `${base}/${id}/deliveries`],
    ];
    await refusedWithoutScope(org, 'members:read', requests);
    await refusedForOtherOrganisation(org, ['webhooks:read'], requests);
  });
});

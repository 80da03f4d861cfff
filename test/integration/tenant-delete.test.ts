// Deleting an organisation (POST /ops/tenants/{orgId}/delete): what ends at once (its sessions, invites, exports, Syrve
// connections, cached entries, slug and domains) and that every path treats it as unknown from then on: sign-in, every
// /orgs/{orgId} route of the OpenAPI document (walked), refresh, the active context, OIDC and the public resolve.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { openSession } from '../../lib/auth/sessions/open-session.ts';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { startFakeDoh, type FakeDoh } from '../../local/emulators/doh/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { startLocalOidcProvider, type LocalOidcProvider } from '../../local/oidc/provider.ts';
import { setPassword } from '../support/fixtures.ts';
import { memberFixtures } from '../support/members.ts';
import { newOperator } from '../support/operators.ts';
import { everyAnswered, walkOrgRoutes } from '../support/org-routes.ts';
import { errorCode } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { freshIp, resolve, seedTenant, unique } from '../support/tenants.ts';

const APP_ORIGIN = 'http://127.0.0.1:8787';
const operator = newOperator('dora');
const PASSWORD = 'correct horse battery';
// A clock that stands still (two minutes behind the real one), so a TOTP code is computed for exactly the step the app sees.
const nowMs = Math.floor(Date.now() / 30_000) * 30_000 - 120_000 + 5_000;
const clock = { now: () => nowMs };

let stack: TestStack;
let provider: LocalOidcProvider;
let doh: FakeDoh;
let m: ReturnType<typeof memberFixtures>;
beforeAll(async () => {
  provider = await startLocalOidcProvider({ redirectUri: `${APP_ORIGIN}/auth/oidc/local/callback` });
  doh = await startFakeDoh();
  stack = await startStack({
    deps: { clock },
    env: {
      OPERATOR_TOKEN_HASHES: operator.entry,
      OIDC_PROVIDERS: JSON.stringify([provider.providerEntry('local')]),
      DOMAIN_VERIFY_DOH_URL: doh.url,
    },
  });
  m = memberFixtures(stack);
});
afterAll(async () => {
  await stack?.close();
  await provider?.close();
  await doh?.close();
});

type Tenant = Awaited<ReturnType<typeof seedTenant>>;
const json = async (response: Response) => (await response.json()) as Record<string, unknown>;
const asOperator = (path: string, body?: unknown) =>
  stack.request('POST', path, { headers: { authorization: `Bearer ${operator.secret}` }, ...(body !== undefined ? { body } : {}) });
const deleteOrg = (organizationId: string, reason = 'contract ended') => asOperator(`/ops/tenants/${organizationId}/delete`, { reason });
const login = (organizationId: string, email: string, password = PASSWORD) =>
  stack.request('POST', '/auth/login', { body: { organizationId, email, password }, headers: { [TEST_CLIENT_IP_HEADER]: freshIp() } });

async function expectCode(response: Response, status: number, code: string): Promise<void> {
  expect([response.status, await errorCode(response)]).toEqual([status, code]);
}

async function signedIn(t: Tenant): Promise<{ accessToken: string; refreshToken: string }> {
  const response = await login(t.organizationId, t.adminEmail);
  expect(response.status).toBe(200);
  return (await response.json()) as { accessToken: string; refreshToken: string };
}

describe('POST /ops/tenants/{orgId}/delete', () => {
  it('deletes once, audited with the operator and the reason; a repeat answers 200 "deleted" and writes nothing', async () => {
    const t = await seedTenant(stack);
    const first = await deleteOrg(t.organizationId, 'asked by the customer');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const answer = await json(first);
    expect(answer).toEqual({
      organizationId: t.organizationId,
      state: 'deleted',
      previousState: 'active',
      ended: { sessions: 0, invites: 0, exports: 0, syrveConnections: 0 },
      denylistPending: 0,
    });
    // The reason is kept in the audit row only: in no answer and no log line.
    expect(JSON.stringify(answer)).not.toContain('asked by the customer');
    expect(stack.logs.join('\n')).not.toContain('asked by the customer');
    const repeat = await deleteOrg(t.organizationId);
    expect(repeat.status).toBe(200);
    expect(await json(repeat)).toMatchObject({ state: 'deleted', previousState: 'deleted' });

    const audit = await stack.db.query(
      `SELECT actor_user_id, target_id, details FROM audit_events WHERE organization_id = $1 AND action = 'tenant.deleted'`,
      [t.organizationId],
    );
    expect(audit.rows).toEqual([
      {
        actor_user_id: null,
        target_id: t.organizationId,
        details: expect.objectContaining({
          operatorId: 'dora',
          reason: 'asked by the customer',
          previousState: 'active',
          releasedSlug: t.slug,
        }),
      },
    ]);
    const org = await stack.db.query('SELECT state, slug FROM organizations WHERE id = $1', [t.organizationId]);
    expect(org.rows[0]).toEqual({ state: 'deleted', slug: `o-${t.organizationId.replaceAll('-', '')}` });
  });

  it('deletes a suspended organisation; suspend and reactivate no longer reach it; an unknown id is 404', async () => {
    const t = await seedTenant(stack, { state: 'suspended' });
    expect(await json(await deleteOrg(t.organizationId))).toMatchObject({ previousState: 'suspended' });
    await expectCode(await asOperator(`/ops/tenants/${t.organizationId}/reactivate`), 404, 'NOT_FOUND');
    await expectCode(await asOperator(`/ops/tenants/${t.organizationId}/suspend`, { reason: 'again' }), 404, 'NOT_FOUND');
    await expectCode(await deleteOrg(uuidv7()), 404, 'NOT_FOUND');
  });

  it('refuses a missing reason (400) and anyone but an operator (401), changing nothing', async () => {
    const t = await seedTenant(stack);
    await expectCode(await asOperator(`/ops/tenants/${t.organizationId}/delete`, {}), 400, 'VALIDATION_FAILED');
    const asAdmin = await stack.request('POST', `/ops/tenants/${t.organizationId}/delete`, { token: t.adminToken, body: { reason: 'x' } });
    expect(asAdmin.status).toBe(401);
    const org = await stack.db.query('SELECT state FROM organizations WHERE id = $1', [t.organizationId]);
    expect(org.rows[0].state).toBe('active');
  });
});

describe('a deleted organisation is gone', () => {
  it('sign-in answers as for an unknown organisation', async () => {
    const t = await seedTenant(stack);
    await setPassword(stack.db, t.adminId, PASSWORD);
    expect((await deleteOrg(t.organizationId)).status).toBe(200);
    await expectCode(await login(t.organizationId, t.adminEmail), 401, 'INVALID_CREDENTIALS');
    // The same answer as an organisation that never existed.
    await expectCode(await login(uuidv7(), t.adminEmail), 401, 'INVALID_CREDENTIALS');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [t.adminId])).rows[0].n).toBe(0);
  });

  it('an MFA challenge issued before the deletion does not sign in: the same 401, and no session', async () => {
    const t = await seedTenant(stack);
    await setPassword(stack.db, t.adminId, PASSWORD);
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: t.adminToken, body: { password: PASSWORD } });
    const { secret } = (await enrolled.json()) as { secret: string };
    const code = (offset: number) => totpCode(base32Decode(secret), totpStep(clock.now()) + offset);
    expect((await stack.request('POST', '/auth/mfa/enrol/confirm', { token: t.adminToken, body: { code: await code(0) } })).status).toBe(
      200,
    );
    const challenged = await login(t.organizationId, t.adminEmail);
    const { challengeToken } = (await challenged.json()) as { challengeToken: string };

    expect((await deleteOrg(t.organizationId)).status).toBe(200);
    const verified = await stack.request('POST', '/auth/mfa/verify', { body: { challengeToken, code: await code(1) } });
    await expectCode(verified, 401, 'INVALID_CREDENTIALS');
    expect((await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [t.adminId])).rows[0].n).toBe(0);
  });

  it('a deletion landing after a sign-in read the state still stops the session: the insert itself refuses it', async () => {
    const t = await seedTenant(stack);
    expect((await deleteOrg(t.organizationId)).status).toBe(200);
    // What every sign-in path calls once its own checks passed (the password's, the code's, the provider's).
    const opened = openSession(stack.deps, {
      userId: t.adminId,
      email: t.adminEmail,
      organizationId: t.organizationId,
      method: 'password',
      userAgent: undefined,
      correlationId: 'delete-race-1',
    });
    await expect(opened).rejects.toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS' });
    const rows = await stack.db.query(`SELECT count(*)::int AS n FROM audit_events WHERE correlation_id = 'delete-race-1'`);
    expect(rows.rows[0].n).toBe(0);
  });

  it('every /orgs/{orgId} route answers its former admin, a member and an outsider 403 FORBIDDEN', async () => {
    const t = await seedTenant(stack);
    const viewer = await m.addMember(t.organizationId, 'Viewer');
    const outsider = await stack.seedOrganization();
    // The control: the walk reaches the routes (the admin's own answers are not refusals; ids are fresh, so it removes nobody).
    const before = await walkOrgRoutes(stack, t.organizationId, t.adminToken);
    expect(before.filter((line) => line.includes('→ 403'))).toEqual([]);

    expect((await deleteOrg(t.organizationId)).status).toBe(200);
    for (const token of [t.adminToken, viewer.token, outsider.adminToken]) {
      const lines = await walkOrgRoutes(stack, t.organizationId, token, { userId: viewer.userId });
      expect(lines).toEqual(everyAnswered(lines, 403, 'FORBIDDEN'));
    }
    // Nothing in it changed: the roles are kept (docs/design/tenants.md#deletion), no audit row but the deletion.
    expect(await m.rolesOf(viewer.userId, t.organizationId)).toEqual([{ role_code: 'Viewer', location_id: null }]);
  });

  it('ends its sessions at once: access tokens 401, refresh refused; sessions of other organisations stay', async () => {
    const t = await seedTenant(stack);
    const other = await seedTenant(stack);
    await setPassword(stack.db, t.adminId, PASSWORD);
    await setPassword(stack.db, other.adminId, PASSWORD);
    const session = await signedIn(t);
    const elsewhere = await signedIn(other);
    expect((await stack.request('GET', '/auth/memberships', { token: session.accessToken })).status).toBe(200);

    const deleted = await json(await deleteOrg(t.organizationId));
    expect(deleted).toMatchObject({ ended: { sessions: 1 }, denylistPending: 0 });
    expect((await stack.request('GET', '/auth/memberships', { token: session.accessToken })).status).toBe(401);
    const refreshed = await stack.request('POST', '/auth/refresh', { body: { refreshToken: session.refreshToken } });
    expect(refreshed.status).toBe(401);
    expect((await stack.request('GET', '/auth/memberships', { token: elsewhere.accessToken })).status).toBe(200);
    const revoked = await stack.db.query('SELECT revoked_at IS NOT NULL AS revoked FROM sessions WHERE organization_id = $1', [
      t.organizationId,
    ]);
    expect(revoked.rows).toEqual([{ revoked: true }]);
  });

  it('the active context refuses it (FORBIDDEN), and memberships no longer list it', async () => {
    const t = await seedTenant(stack);
    const put = () => stack.request('PUT', '/auth/context', { token: t.adminToken, body: { organizationId: t.organizationId } });
    expect((await put()).status).toBe(200);
    expect((await deleteOrg(t.organizationId)).status).toBe(200);
    await expectCode(await put(), 403, 'FORBIDDEN');
    const memberships = await json(await stack.request('GET', '/auth/memberships', { token: t.adminToken }));
    expect(JSON.stringify(memberships)).not.toContain(t.organizationId);
  });

  it('OIDC start refuses it as an unknown organisation', async () => {
    const t = await seedTenant(stack);
    await stack.db.query("INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, 'local')", [t.organizationId]);
    const start = () => stack.request('GET', `/auth/oidc/local/start?organizationId=${t.organizationId}`);
    expect((await start()).status).toBe(302);
    expect((await deleteOrg(t.organizationId)).status).toBe(200);
    const refused = await start();
    const unknown = await stack.request('GET', `/auth/oidc/local/start?organizationId=${uuidv7()}`);
    expect([refused.status, await errorCode(refused)]).toEqual([unknown.status, await errorCode(unknown)]);
    expect(refused.status).toBe(404);
  });
});

describe('what a deletion ends and releases', () => {
  it('cancels its invites, exports and Syrve connections', async () => {
    const t = await seedTenant(stack);
    const invite = await stack.request('POST', `/orgs/${t.organizationId}/invites`, {
      token: t.adminToken,
      body: { email: `${unique('inv')}@example.test`, roleCode: 'Viewer' },
    });
    expect(invite.status).toBe(201);
    const { invite: created, token: inviteToken } = (await invite.json()) as { invite: { inviteId: string }; token: string };
    const exported = await stack.request('POST', `/orgs/${t.organizationId}/audit/exports`, { token: t.adminToken });
    expect(exported.status).toBe(202);
    const { jobId } = ((await exported.json()) as { job: { jobId: string } }).job;
    const connectionId = uuidv7();
    await stack.db.query(
      `INSERT INTO syrve_connections (id, organization_id, name, base_url, login, password_ciphertext, password_key_id)
       VALUES ($1, $2, 'rms', 'http://127.0.0.1:9', 'api', 'not-opened', 'test1')`,
      [connectionId, t.organizationId],
    );
    const runtimeKey = stack.deps.keys.syrveRuntimeToken(t.organizationId, connectionId);
    await stack.redis.set(runtimeKey, 'not-a-session', 'EX', 600);

    const deleted = await json(await deleteOrg(t.organizationId));
    expect(deleted).toMatchObject({ ended: { sessions: 0, invites: 1, exports: 1, syrveConnections: 1 } });

    // The invite: gone from Redis, its outcome recorded as cancelled (so no accept can ever grant it).
    expect(await stack.redis.get(stack.deps.keys.inviteObject(t.organizationId, created.inviteId))).toBeNull();
    expect(await stack.redis.zcard(stack.deps.keys.inviteActiveByOrg(t.organizationId))).toBe(0);
    const outcome = await stack.db.query('SELECT outcome FROM invite_outcomes WHERE invite_id = $1', [created.inviteId]);
    expect(outcome.rows).toEqual([{ outcome: 'cancelled' }]);
    const accepted = await stack.request('POST', '/invites/accept', {
      token: await stack.token({ userId: uuidv7(), email: 'someone@example.test' }),
      body: { token: inviteToken },
    });
    expect(accepted.status).toBe(410);
    // The export and the connection.
    const job = await stack.db.query('SELECT state FROM jobs WHERE id = $1', [jobId]);
    expect(job.rows).toEqual([{ state: 'cancelled' }]);
    const connection = await stack.db.query('SELECT enabled FROM syrve_connections WHERE id = $1', [connectionId]);
    expect(connection.rows).toEqual([{ enabled: false }]);
    expect(await stack.redis.get(runtimeKey)).toBeNull();
  });

  it('releases its slug and domains: resolve says 404, and another organisation takes both', async () => {
    const slug = unique('gone');
    const domain = `${unique('gone')}.example`;
    const t = await seedTenant(stack, { slug, domains: [domain] });
    const ip = freshIp();
    expect((await resolve(stack, { slug }, ip)).status).toBe(200);
    expect((await resolve(stack, { domain }, ip)).status).toBe(200);

    expect((await deleteOrg(t.organizationId)).status).toBe(200);
    expect((await resolve(stack, { slug }, ip)).status).toBe(404);
    expect((await resolve(stack, { domain }, ip)).status).toBe(404);

    const next = await seedTenant(stack);
    const branded = await stack.request('PATCH', `/orgs/${next.organizationId}/branding`, { token: next.adminToken, body: { slug } });
    expect(branded.status).toBe(200);
    const claimed = await stack.request('PUT', `/orgs/${next.organizationId}/domains`, {
      token: next.adminToken,
      body: { domains: [domain] },
    });
    expect(claimed.status).toBe(200);
    const record = ((await claimed.json()) as { domains: Array<{ txtRecord: { name: string; value: string } }> }).domains[0]!.txtRecord;
    doh.records.set(record.name, [record.value]);
    const verified = await stack.request('POST', `/orgs/${next.organizationId}/domains/${domain}/verify`, { token: next.adminToken });
    expect(verified.status).toBe(200);
    expect(await json(await resolve(stack, { slug }, ip))).toMatchObject({ tenant: { organizationId: next.organizationId } });
    expect(await json(await resolve(stack, { domain }, ip))).toMatchObject({ tenant: { organizationId: next.organizationId } });
  });

  it('forgets its cached settings at once', async () => {
    const t = await seedTenant(stack);
    const outsider = await stack.seedOrganization();
    expect((await stack.request('GET', `/orgs/${t.organizationId}/settings`, { token: t.adminToken })).status).toBe(200);
    expect((await deleteOrg(t.organizationId)).status).toBe(200);
    await expectCode(await stack.request('GET', `/orgs/${t.organizationId}/settings`, { token: t.adminToken }), 403, 'FORBIDDEN');
    await expectCode(await stack.request('GET', `/orgs/${t.organizationId}/settings`, { token: outsider.adminToken }), 403, 'FORBIDDEN');
  });
});

// Connection routes: create, list, test, stores, disable and enable, with RBAC, the base-URL policy and the sealed password.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { openSecret } from '../../lib/crypto/secret-box.ts';
import { createSyrveClient } from '../../lib/upstream/syrve/index.ts';
import { composeApp } from '../../local/stack/app.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { connectFake, startFakeSyrve, storesPath, type FakeSyrve } from '../support/syrve.ts';

let stack: TestStack;
let fake: FakeSyrve;
beforeAll(async () => {
  stack = await startStack();
  fake = await startFakeSyrve();
});
afterAll(async () => {
  await fake?.close();
  await stack?.close();
});

const path = (orgId: string, rest = '') => `/orgs/${orgId}/syrve/connections${rest}`;

describe('create and list', () => {
  it('creates a connection (201) whose answer and list never carry the password; the row holds it sealed to this row', async () => {
    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    fake.setAccount('manager', password);
    const response = await stack.request('POST', path(org.organizationId), {
      token: org.adminToken,
      body: { name: 'Main RMS', baseUrl: `${fake.url}/`, login: 'manager', password },
    });
    expect(response.status).toBe(201);
    const text = await response.text();
    expect(text).not.toContain(password);
    const { connection } = JSON.parse(text) as { connection: Record<string, unknown> };
    expect(Object.keys(connection).sort()).toEqual(
      ['baseUrl', 'connectionId', 'createdAtUtc', 'credentialVersion', 'enabled', 'login', 'name', 'organizationId', 'updatedAtUtc'].sort(),
    );
    expect(connection).toMatchObject({ name: 'Main RMS', baseUrl: fake.url, login: 'manager', credentialVersion: 1, enabled: true });

    const list = await stack.request('GET', path(org.organizationId), { token: org.adminToken });
    expect(list.status).toBe(200);
    const listText = await list.text();
    expect(listText).not.toContain(password);
    expect((JSON.parse(listText) as { connections: unknown[] }).connections).toEqual([connection]);

    const row = (
      await stack.db.query('SELECT password_ciphertext, password_key_id FROM syrve_connections WHERE id = $1', [connection.connectionId])
    ).rows[0] as { password_ciphertext: string; password_key_id: string };
    expect(row.password_key_id).toBe('test1');
    const binding = {
      purpose: 'syrve-password' as const,
      organizationId: org.organizationId,
      connectionId: String(connection.connectionId),
      credentialVersion: 1,
    };
    const sealed = { keyId: row.password_key_id, ciphertext: row.password_ciphertext };
    expect(await openSecret(stack.config.secretsKeys, sealed, binding)).toBe(password);
    // Copied to another connection (or version), it does not open.
    await expect(openSecret(stack.config.secretsKeys, sealed, { ...binding, connectionId: uuidv7() })).rejects.toThrow();
    await expect(openSecret(stack.config.secretsKeys, sealed, { ...binding, credentialVersion: 2 })).rejects.toThrow();
  });

  it('refuses a duplicate name (409), bad input (400), a non-admin (403) and another tenant (403)', async () => {
    const org = await stack.seedOrganization();
    await connectFake(stack, org, fake, { name: 'Dup' });
    const dup = await stack.request('POST', path(org.organizationId), {
      token: org.adminToken,
      body: { name: 'Dup', baseUrl: fake.url, login: 'a', password: 'b' },
    });
    expect(dup.status).toBe(409);
    for (const body of [
      { name: 'x', baseUrl: fake.url, login: 'a' },
      { name: '', baseUrl: fake.url, login: 'a', password: 'b' },
      { name: 'x', baseUrl: fake.url, login: 'a\u0000b', password: 'b' },
      { name: 'x', baseUrl: fake.url, login: 'a', password: 'b', extra: 1 },
      { name: 'x', baseUrl: 'ftp://127.0.0.1/', login: 'a', password: 'b' },
    ]) {
      expect((await stack.request('POST', path(org.organizationId), { token: org.adminToken, body })).status).toBe(400);
    }
    const other = await stack.seedOrganization();
    expect((await stack.request('GET', path(org.organizationId), { token: other.adminToken })).status).toBe(403);
    const viewer = await stack.token({ userId: uuidv7(), email: 'viewer@example.test' });
    expect((await stack.request('GET', path(org.organizationId), { token: viewer })).status).toBe(403);
    expect((await stack.request('GET', path(org.organizationId))).status).toBe(401);
  });
});

describe('base URLs that would make the functions an SSRF tool', () => {
  it('private, link-local and metadata addresses are refused with 400 before any connection is tried', async () => {
    const org = await stack.seedOrganization();
    for (const baseUrl of [
      'http://10.0.0.8',
      'https://192.168.1.10',
      'https://169.254.169.254',
      'http://metadata.google.internal',
      'https://[fd00:ec2::254]',
      'https://[::ffff:10.0.0.1]',
      'https://0xa9fea9fe',
      'https://user:pass@rms.example.com',
    ]) {
      const response = await stack.request('POST', path(org.organizationId), {
        token: org.adminToken,
        body: { name: `n-${uuidv7().slice(-6)}`, baseUrl, login: 'a', password: 'b' },
      });
      expect(response.status, baseUrl).toBe(400);
    }
    expect(
      (await stack.db.query('SELECT count(*)::int AS n FROM syrve_connections WHERE organization_id = $1', [org.organizationId])).rows[0].n,
    ).toBe(0);
  });

  it('a row edited in PostgreSQL to a private address is refused by the client before it fetches', async () => {
    const org = await stack.seedOrganization();
    const connection = await connectFake(stack, org, fake);
    await stack.db.query("UPDATE syrve_connections SET base_url = 'http://10.1.2.3' WHERE id = $1", [connection.connectionId]);
    let fetched = 0;
    const spy: typeof fetch = () => {
      fetched += 1;
      return Promise.reject(new Error('must not fetch'));
    };
    const guarded = composeApp(stack.env, { syrve: createSyrveClient({ appEnv: 'test', fetch: spy }) });
    const response = await guarded.request('GET', storesPath(org, connection), { token: org.adminToken });
    expect(response.status).toBe(502);
    expect(fetched).toBe(0);
  });
});

describe('test, stores, disable and enable', () => {
  it('test acquires then reuses the session; disable deletes it and logs it out; a disabled connection refuses calls', async () => {
    const org = await stack.seedOrganization();
    const connection = await connectFake(stack, org, fake);
    const testPath = path(org.organizationId, `/${connection.connectionId}/test`);
    expect(await (await stack.request('POST', testPath, { token: org.adminToken })).json()).toEqual({ test: 'ok', session: 'acquired' });
    expect(await (await stack.request('POST', testPath, { token: org.adminToken })).json()).toEqual({ test: 'ok', session: 'cached' });
    const sessionKey = stack.deps.keys.syrveRuntimeToken(org.organizationId, connection.connectionId);
    expect(await stack.redis.exists(sessionKey)).toBe(1);
    const logoutsBefore = fake.stats().logouts;

    expect((await stack.request('DELETE', path(org.organizationId, `/${connection.connectionId}`), { token: org.adminToken })).status).toBe(
      204,
    );
    expect(await stack.redis.exists(sessionKey)).toBe(0);
    expect(fake.stats().logouts).toBe(logoutsBefore + 1);
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(409);
    expect((await stack.request('POST', testPath, { token: org.adminToken })).status).toBe(409);
    // Disabling again is idempotent and writes no second audit row.
    expect((await stack.request('DELETE', path(org.organizationId, `/${connection.connectionId}`), { token: org.adminToken })).status).toBe(
      204,
    );
    const disabled = await stack.db.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'syrve.connection_disabled'",
      [connection.connectionId],
    );
    expect(disabled.rows[0].n).toBe(1);

    expect(
      (await stack.request('POST', path(org.organizationId, `/${connection.connectionId}/enable`), { token: org.adminToken })).status,
    ).toBe(204);
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(200);
  });

  it('another tenant cannot reach a connection by id: 403 for the role, 404 for an id of another organisation', async () => {
    const org = await stack.seedOrganization();
    const connection = await connectFake(stack, org, fake);
    const other = await stack.seedOrganization();
    expect((await stack.request('GET', storesPath(org, connection), { token: other.adminToken })).status).toBe(403);
    expect((await stack.request('GET', storesPath(other, connection), { token: other.adminToken })).status).toBe(404);
    expect(
      (await stack.request('DELETE', path(other.organizationId, `/${connection.connectionId}`), { token: other.adminToken })).status,
    ).toBe(404);
  });
});

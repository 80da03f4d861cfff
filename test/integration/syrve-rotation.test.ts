// The credential-rotation webhook: signature, freshness and replay checked first; commit, drop, test in order; no stale login survives it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { startStack, type TestStack } from '../support/stack.ts';
import { connectFake, sendRotation, startFakeSyrve, storesPath, type FakeSyrve } from '../support/syrve.ts';

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
beforeEach(() => fake.setDelay(0));

async function setUp() {
  const org = await stack.seedOrganization();
  const login = `old-${uuidv7().slice(-8)}`;
  const connection = await connectFake(stack, org, fake, { login, password: 'old-password' });
  return { org, connection, login };
}

async function row(connectionId: string) {
  const result = await stack.db.query(
    'SELECT login, credential_version, password_ciphertext, password_key_id, credentials_rotated_at FROM syrve_connections WHERE id = $1',
    [connectionId],
  );
  return result.rows[0] as { login: string; credential_version: number; password_ciphertext: string };
}

const code = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code;

describe('refused deliveries change nothing', () => {
  it('mis-signed, stale, future and replayed webhooks are refused (401, 401, 401, 409) with the row and the session untouched', async () => {
    const { org, connection } = await setUp();
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(200);
    const sessionKey = stack.deps.keys.syrveRuntimeToken(org.organizationId, connection.connectionId);
    const session = await stack.redis.get(sessionKey);
    const before = await row(connection.connectionId);
    const body = { organizationId: org.organizationId, connectionId: connection.connectionId, login: 'new', password: 'new-password' };
    const now = Math.floor(Date.now() / 1000);

    const wrongSecret = await sendRotation(stack, body, { secret: `whsec_${btoa('another-secret-of-24-b')}` });
    expect(wrongSecret.status).toBe(401);
    expect(await code(wrongSecret)).toBe('WEBHOOK_SIGNATURE_INVALID');
    expect((await sendRotation(stack, body, { signature: 'v1,AAAA' })).status).toBe(401);
    // 30 s past the 300 s tolerance each way: `now` was read before the calls above, which take a moment on a busy machine.
    expect((await sendRotation(stack, body, { timestampSeconds: now - 330 })).status).toBe(401);
    expect((await sendRotation(stack, body, { timestampSeconds: now + 330 })).status).toBe(401);
    // A body altered after signing.
    const tampered = await stack.request('POST', '/webhooks/syrve/credentials-rotated', {
      rawBody: JSON.stringify({ ...body, password: 'attacker' }),
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_x',
        'webhook-timestamp': String(now),
        'webhook-signature': 'v1,' + btoa('x'.repeat(32)),
      },
    });
    expect(tampered.status).toBe(401);

    fake.setAccount('new', 'new-password');
    const id = `msg_${uuidv7()}`;
    const first = await sendRotation(stack, body, { id });
    expect(first.status).toBe(200);
    const afterFirst = await row(connection.connectionId);
    expect(afterFirst.credential_version).toBe(before.credential_version + 1);
    const sessionAfterFirst = await stack.redis.get(sessionKey);
    const replay = await sendRotation(stack, { ...body, password: 'replayed-password' }, { id });
    expect(replay.status).toBe(409);
    expect(await code(replay)).toBe('WEBHOOK_REPLAYED');
    expect(await row(connection.connectionId)).toEqual(afterFirst);
    expect(await stack.redis.get(sessionKey)).toBe(sessionAfterFirst);
    expect(session).not.toBe(sessionAfterFirst);
  });

  it('a bad body after a good signature is 400, and an unknown connection 404, both with nothing changed', async () => {
    const { org, connection } = await setUp();
    const before = await row(connection.connectionId);
    const missing = await sendRotation(stack, { organizationId: org.organizationId, connectionId: uuidv7(), login: 'x', password: 'y' });
    expect(missing.status).toBe(404);
    const otherOrg = await stack.seedOrganization();
    const crossTenant = await sendRotation(stack, {
      organizationId: otherOrg.organizationId,
      connectionId: connection.connectionId,
      login: 'x',
      password: 'y',
    });
    expect(crossTenant.status).toBe(404);
    const bad = await sendRotation(stack, {
      organizationId: org.organizationId,
      connectionId: connection.connectionId,
      login: '',
      password: 'y',
    });
    expect(bad.status).toBe(400);
    expect(await row(connection.connectionId)).toEqual(before);
  });
});

describe('ordering', () => {
  it('an older rotation never overwrites a newer one', async () => {
    const { org, connection } = await setUp();
    const now = Math.floor(Date.now() / 1000);
    fake.setAccount('newer', 'newer-password');
    const ref = { organizationId: org.organizationId, connectionId: connection.connectionId };
    expect((await sendRotation(stack, { ...ref, login: 'newer', password: 'newer-password' }, { timestampSeconds: now })).status).toBe(200);
    const late = await sendRotation(stack, { ...ref, login: 'older', password: 'older-password' }, { timestampSeconds: now - 60 });
    expect(late.status).toBe(409);
    expect(await code(late)).toBe('ROTATION_SUPERSEDED');
    const current = await row(connection.connectionId);
    expect(current.login).toBe('newer');
    expect(current.credential_version).toBe(2);
    expect((await stack.request('GET', storesPath(org, connection), { token: org.adminToken })).status).toBe(200);
  });

  it('a login that started with the old credentials never stores its session after the rotation', async () => {
    const { org, connection } = await setUp();
    fake.setAccount('rotated', 'rotated-password');
    fake.resetStats();
    const liveBefore = fake.stats().liveSessions; // other tests' connections share this fake
    fake.setDelay(700); // the old-credential login is still on the wire when the rotation commits
    const oldCall = stack.request('GET', storesPath(org, connection), { token: org.adminToken });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const rotation = await sendRotation(stack, {
      organizationId: org.organizationId,
      connectionId: connection.connectionId,
      login: 'rotated',
      password: 'rotated-password',
    });
    const oldResponse = await oldCall;
    expect(rotation.status).toBe(200);
    expect(await rotation.json()).toEqual({ connectionId: connection.connectionId, test: 'ok' });
    // The old login's session was refused (and logged out); it is not what the cache holds.
    expect(oldResponse.status).toBe(409);
    expect(await code(oldResponse)).toBe('CONNECTION_CHANGED');
    const cached = JSON.parse((await stack.redis.get(stack.deps.keys.syrveRuntimeToken(org.organizationId, connection.connectionId)))!) as {
      credentialVersion: number;
    };
    expect(cached.credentialVersion).toBe(2);
    expect(fake.stats().logins).toBe(2);
    expect(fake.stats().logouts).toBe(1);
    expect(fake.stats().liveSessions).toBe(liveBefore + 1);
  });
});

describe('audit', () => {
  it('records the rotation and its test with safe status only', async () => {
    const { org, connection } = await setUp();
    fake.setAccount('audited', 'audited-password');
    expect(
      (
        await sendRotation(stack, {
          organizationId: org.organizationId,
          connectionId: connection.connectionId,
          login: 'audited',
          password: 'audited-password',
        })
      ).status,
    ).toBe(200);
    const audit = await stack.db.query(
      "SELECT action, details, actor_user_id FROM audit_events WHERE target_id = $1 AND action LIKE 'syrve.%' ORDER BY occurred_at, id",
      [connection.connectionId],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['syrve.connection_created', 'syrve.credentials_rotated', 'syrve.connection_tested']);
    expect(audit.rows[1].details).toEqual({ credentialVersion: 2 });
    expect(audit.rows[2].details).toEqual({ result: 'ok', trigger: 'rotation', credentialVersion: 2 });
    expect(JSON.stringify(audit.rows)).not.toContain('audited-password');
  });
});

// SSO handoff: a one-time code hands a session to another configured app, exactly once, for as long as the session lives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { sha256Hex } from '../../lib/crypto/index.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ env: { SSO_HANDOFF_AUDIENCES: 'console,reports' } });
});
afterAll(async () => stack?.close());

async function caller() {
  const org = await stack.seedOrganization();
  const sessionId = uuidv7();
  const token = await stack.token({ userId: org.adminId, sessionId, email: org.adminEmail });
  return { org, sessionId, token };
}

async function issue(token: string, audience = 'console'): Promise<string> {
  const response = await stack.request('POST', '/auth/handoff', { token, body: { audience } });
  expect(response.status).toBe(201);
  const body = (await response.json()) as { code: string; expiresInSeconds: number };
  expect(body.expiresInSeconds).toBe(60);
  return body.code;
}

const exchange = (code: string, audience = 'console') => stack.request('POST', '/auth/handoff/exchange', { body: { code, audience } });

describe('SSO handoff', () => {
  it("exchanges once for a token of the same session, for the target app's audience", async () => {
    const { org, sessionId, token } = await caller();
    const code = await issue(token);
    const response = await exchange(code);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { accessToken: string; userId: string };
    expect(decodeJwt(body.accessToken)).toMatchObject({ sub: org.adminId, sid: sessionId, aud: 'console', email: org.adminEmail });
    expect(body.userId).toBe(org.adminId);
    const again = await exchange(code);
    expect(again.status).toBe(401);
  });

  it('50 parallel exchanges of one code: exactly one succeeds', async () => {
    const { token } = await caller();
    const code = await issue(token);
    const statuses = await Promise.all(Array.from({ length: 50 }, () => exchange(code).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(49);
  });

  it('a used, an expired, a never-issued and a code for another app all get the same answer', async () => {
    const { token } = await caller();
    const used = await issue(token);
    await exchange(used);
    const expired = await issue(token);
    const [expiredKey] = await stack.redis.keys(`*${await sha256Hex(expired)}`);
    await stack.redis.pexpire(expiredKey!, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const forReports = await issue(token, 'reports');
    const answers = new Set<string>();
    for (const [code, audience] of [
      [used, 'console'],
      [expired, 'console'],
      [`rsh_${'B'.repeat(43)}`, 'console'],
      [forReports, 'console'],
      ['not-a-code', 'console'],
    ] as const) {
      const response = await exchange(code, audience);
      answers.add(`${response.status} ${await response.text()}`);
    }
    expect([...answers]).toEqual([expect.stringMatching(/^401 .*"HANDOFF_INVALID"/)]);
  });

  it('refuses an app that is not configured, and a token without a verified email', async () => {
    const { org, token } = await caller();
    expect((await stack.request('POST', '/auth/handoff', { token, body: { audience: 'elsewhere' } })).status).toBe(400);
    const unverified = await stack.token({ userId: org.adminId, email: org.adminEmail, emailVerified: false });
    expect((await stack.request('POST', '/auth/handoff', { token: unverified, body: { audience: 'console' } })).status).toBe(403);
  });

  it('a code whose session was logged out meanwhile is refused', async () => {
    const { token } = await caller();
    const code = await issue(token);
    expect((await stack.request('POST', '/auth/logout', { token })).status).toBe(204);
    expect((await exchange(code)).status).toBe(401);
  });

  it('Redis down: the exchange fails closed with 503, never a token', async () => {
    const { token } = await caller();
    const code = await issue(token);
    stack.redisProxy.faults.set({ refuse: true });
    try {
      const response = await exchange(code);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
    } finally {
      stack.redisProxy.faults.clear();
    }
  });

  it('keeps the code out of keys, values and logs (canary, with a positive control)', async () => {
    const { token } = await caller();
    const code = await issue(token);
    const keys = await stack.redis.keys('*');
    const values = await Promise.all(keys.map((key) => stack.redis.dumpBuffer(key)));
    const haystack = [keys.join('\n'), values.map((v) => v?.toString('latin1')).join('\n'), stack.logs.join('\n')].join('\n');
    expect(haystack).toContain(await sha256Hex(code));
    expect(haystack).not.toContain(code);
  });
});

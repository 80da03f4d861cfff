// SSO handoff: a one-time code hands a session to another configured app, exactly once, for as long as the session lives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../lib/crypto/index.ts';
import { passwordSignIn } from '../support/sessions.ts';
import { ipSubject, THROTTLE_LIMITS, throttleWindow } from '../../lib/runtime/throttle/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { startStack, type TestStack } from '../support/stack.ts';

/** The canary: `billing`'s client secret, random per run; only its SHA-256 is configured. */
const BILLING_SECRET = `rshc_${randomBytes(32).toString('base64url')}`;
/** Another app's secret, configured for `ledger`: right shape, wrong app for billing. */
const LEDGER_SECRET = `rshc_${randomBytes(32).toString('base64url')}`;
const basic = (app: string, secret: string) => `Basic ${btoa(`${app}:${secret}`)}`;

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({
    env: {
      SSO_HANDOFF_AUDIENCES: `console,reports,billing:${await sha256Hex(BILLING_SECRET)},ledger:${await sha256Hex(LEDGER_SECRET)}`,
    },
  });
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

const exchange = (code: string, audience = 'console', authorization?: string, ip?: string) =>
  stack.request('POST', '/auth/handoff/exchange', {
    body: { code, audience },
    headers: { ...(authorization !== undefined ? { authorization } : {}), ...(ip !== undefined ? { [TEST_CLIENT_IP_HEADER]: ip } : {}) },
  });

const madeUpCode = () => `rsh_${randomBytes(32).toString('base64url')}`;
const freshV4 = () => `10.${[...randomBytes(3)].join('.')}`;

/** The (audience, address) counter of handoff-exchange, set `left` hits short of its limit. */
async function fillExchangeCounter(audience: string, ip: string, left: number): Promise<string> {
  const window = await throttleWindow(stack.deps, {
    action: 'handoff-exchange',
    scope: { kind: 'platform', tag: 'sso-handoff' },
    subject: ipSubject(ip) + ' ' + audience,
  });
  await stack.redis.set(window.key, String(window.limit - left), 'EX', window.ttlSeconds);
  return window.key;
}

type AuditRow = { actor_user_id: string; organization_id: string | null; target_id: string | null; details: Record<string, unknown> };
const handoffAudit = async (userId: string): Promise<AuditRow[]> =>
  (
    await stack.db.query<AuditRow>(
      `SELECT actor_user_id, organization_id, target_id, details FROM audit_events
        WHERE action = 'auth.handoff_exchanged' AND actor_user_id = $1 ORDER BY id`,
      [userId],
    )
  ).rows;

describe('SSO handoff', () => {
  it("exchanges once for a token of the same session, for the target app's audience", async () => {
    const { org, sessionId, token } = await caller();
    const code = await issue(token);
    const response = await exchange(code);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { accessToken: string; userId: string };
    expect(decodeJwt(body.accessToken)).toMatchObject({ sub: org.adminId, sid: sessionId, aud: 'console', email: org.adminEmail });
    // An identity provider's session (no row here) is bound to no organisation, and neither is its handed-off token.
    expect(decodeJwt(body.accessToken).org).toBeUndefined();
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

describe('the audit row', () => {
  it('an exchange that hands out a token writes auth.handoff_exchanged: user, organisation, app; a refused one writes none', async () => {
    const org = await stack.seedOrganization();
    const signIn = await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail });
    const session = await signIn(org.organizationId);
    const code = await issue(session.accessToken);
    const response = await exchange(code);
    expect(response.status).toBe(200);
    const { accessToken } = (await response.json()) as { accessToken: string };
    // The same session's token carries the session's binding, as every token this deployment signs does.
    expect(decodeJwt(accessToken)).toMatchObject({ sid: session.sessionId, org: org.organizationId });
    expect((await exchange(code)).status).toBe(401);
    const rows = await handoffAudit(org.adminId);
    expect(rows).toEqual([
      {
        actor_user_id: org.adminId,
        organization_id: org.organizationId,
        target_id: org.adminId,
        details: { audience: 'console', clientAuthenticated: false },
      },
    ]);
    const row = JSON.stringify(rows);
    for (const secret of [code, await sha256Hex(code), accessToken, session.accessToken, session.refreshToken, session.sessionId]) {
      expect(row).not.toContain(secret);
    }
  });

  it('PostgreSQL down when the row is due: 503 and no token', async () => {
    const { token } = await caller();
    const code = await issue(token);
    stack.neonProxy.faults.set({ refuse: true });
    try {
      const response = await exchange(code);
      expect(response.status).toBe(503);
      expect(await response.text()).not.toContain('accessToken');
    } finally {
      stack.neonProxy.faults.clear();
    }
  });
});

describe("an app's client secret", () => {
  it("billing must send its secret as Basic: without it, with a wrong one, another app's or a malformed one, 401 and the code is not spent", async () => {
    const { org, token } = await caller();
    const code = await issue(token, 'billing');
    const refusals = [
      undefined,
      basic('billing', `rshc_${randomBytes(32).toString('base64url')}`),
      basic('billing', LEDGER_SECRET),
      basic('ledger', BILLING_SECRET),
      basic('billing', 'not-a-secret'),
      `Bearer ${BILLING_SECRET}`,
      'Basic !!!',
      basic('billing', BILLING_SECRET.slice(0, -1)),
    ];
    const answers = new Set<string>();
    for (const authorization of refusals) {
      const response = await exchange(code, 'billing', authorization);
      answers.add(`${response.status} ${await response.text()}`);
    }
    // One answer, the same as a bad code's: a code thief learns nothing about which part failed.
    expect([...answers]).toEqual([expect.stringMatching(/^401 .*"HANDOFF_INVALID"/)]);
    expect(await handoffAudit(org.adminId)).toEqual([]);
    // None of them touched the code: the app with its secret still exchanges it, once.
    const response = await exchange(code, 'billing', basic('billing', BILLING_SECRET));
    expect(response.status).toBe(200);
    expect(decodeJwt(((await response.json()) as { accessToken: string }).accessToken)).toMatchObject({ aud: 'billing' });
    expect((await exchange(code, 'billing', basic('billing', BILLING_SECRET))).status).toBe(401);
    expect((await handoffAudit(org.adminId)).map((row) => row.details)).toEqual([{ audience: 'billing', clientAuthenticated: true }]);
    const warns = stack.logs
      .filter((line) => line.includes('"handoff_client_refused"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(new Set(warns.map((line) => line.reason))).toEqual(new Set(['missing', 'wrong-secret', 'another-app', 'malformed']));
    expect(new Set(warns.map((line) => line.audience))).toEqual(new Set(['billing']));
  });

  it('an app without a secret ignores the header; an app with one refuses a code made out to another app with its own secret', async () => {
    const { token } = await caller();
    const forConsole = await issue(token, 'console');
    expect((await exchange(forConsole, 'console', basic('console', BILLING_SECRET))).status).toBe(200);
    const forReports = await issue(token, 'reports');
    // billing's secret proves billing, and the code is reports': refused (and, like any code for another app, spent).
    expect((await exchange(forReports, 'billing', basic('billing', BILLING_SECRET))).status).toBe(401);
    expect((await exchange(forReports, 'reports')).status).toBe(401);
  });

  it('an app without a secret is limited per (audience, address): a flood of made-up codes meets 429, one Redis round trip each, and a real code from there is left unspent', async () => {
    const { token } = await caller();
    const flooder = freshV4();
    await fillExchangeCounter('console', flooder, 3);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await exchange(madeUpCode(), 'console', undefined, flooder)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    const code = await issue(token, 'console');
    stack.redisProxy.stats.reset();
    const refused = await exchange(code, 'console', undefined, flooder);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(stack.redisProxy.stats.requests).toBe(1);
    // Per audience: the same address is not limited for another app; and the code, untouched, works from elsewhere.
    expect((await exchange(madeUpCode(), 'reports', undefined, flooder)).status).toBe(401);
    expect((await exchange(code, 'console', undefined, freshV4())).status).toBe(200);
  });

  it('an app presenting its client secret is exempt: its exchanges are not counted, and a full counter does not refuse them', async () => {
    const { token } = await caller();
    const backend = freshV4();
    const key = await fillExchangeCounter('billing', backend, 0);
    for (let i = 0; i < 3; i++) {
      const code = await issue(token, 'billing');
      expect((await exchange(code, 'billing', basic('billing', BILLING_SECRET), backend)).status).toBe(200);
    }
    expect(await stack.redis.get(key)).toBe(String(THROTTLE_LIMITS['handoff-exchange'].limit));
  });

  it('an audience this deployment does not hand sessions to is refused before the store', async () => {
    stack.redisProxy.stats.reset();
    expect((await exchange(madeUpCode(), 'nowhere')).status).toBe(401);
    expect(stack.redisProxy.stats.requests).toBe(0);
  });

  it('keeps the secret out of every answer, log line, audit row, Redis key and value (canary, with a positive control)', async () => {
    const { token } = await caller();
    const code = await issue(token, 'billing');
    const answers = [
      await exchange(code, 'billing', basic('billing', `${BILLING_SECRET.slice(0, -1)}x`)),
      await exchange(code, 'billing', basic('ledger', BILLING_SECRET)),
      await exchange(code, 'billing', basic('billing', BILLING_SECRET)),
    ];
    expect(answers.map((response) => response.status)).toEqual([401, 401, 200]);
    const bodies = await Promise.all(answers.map((response) => response.text()));
    const keys = await stack.redis.keys('*');
    const values = await Promise.all(keys.map((key) => stack.redis.dumpBuffer(key)));
    const audit = await stack.db.query(`SELECT details::text FROM audit_events WHERE action = 'auth.handoff_exchanged'`);
    const haystack = [
      bodies.join('\n'),
      stack.logs.join('\n'),
      JSON.stringify(audit.rows),
      keys.join('\n'),
      values.map((v) => v?.toString('latin1')).join('\n'),
    ].join('\n');
    // The control: the haystack holds what was logged and audited about this very app.
    expect(haystack).toContain('"audience":"billing"');
    for (const secret of [BILLING_SECRET, LEDGER_SECRET, btoa(`billing:${BILLING_SECRET}`), btoa(`ledger:${BILLING_SECRET}`)]) {
      expect(haystack).not.toContain(secret);
    }
  });
});

describe("HS256 (dev/test): the handed-off token is the target app's alone", () => {
  it("a token made out to console is refused on this deployment's own routes; the user's own token is not", async () => {
    const { org, token } = await caller();
    const response = await exchange(await issue(token));
    const { accessToken } = (await response.json()) as { accessToken: string };
    expect(decodeJwt(accessToken).aud).toBe('console');
    for (const [method, path] of [
      ['GET', '/auth/memberships'],
      ['GET', `/orgs/${org.organizationId}/invites`],
      ['POST', '/auth/handoff'],
    ] as const) {
      const refused = await stack.request(method, path, {
        token: accessToken,
        ...(method === 'POST' ? { body: { audience: 'reports' } } : {}),
      });
      expect(refused.status, path).toBe(401);
    }
    expect((await stack.request('GET', '/auth/memberships', { token })).status).toBe(200);
  });
});

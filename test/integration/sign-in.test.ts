// Sign-in: password login within an organisation, one answer for every credential refusal, tenant-scoped throttles,
// refresh rotation with reuse detection, and the tokens it issues working (and revoked) like any other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { THROTTLE_LIMITS } from '../../lib/runtime/throttle/limits.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

interface Tokens {
  status: string;
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
  sessionExpiresAtUtc: string;
}

let ipCounter = 0;
/** A fresh caller address per test, so the per-IP throttle of one test never spills into another. */
const freshIp = () => `127.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

async function withPassword(org: Org): Promise<string> {
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  return password;
}

function login(body: Record<string, unknown>, ip = freshIp()) {
  return stack.request('POST', '/auth/login', { body, headers: { [TEST_CLIENT_IP_HEADER]: ip } });
}

describe('login', () => {
  it('signs in with email and password: a 15-minute access token that works on the routes, and a refresh token', async () => {
    const org = await stack.seedOrganization();
    const password = await withPassword(org);
    const response = await login({ organizationId: org.organizationId, email: org.adminEmail.toUpperCase(), password });
    expect(response.status).toBe(200);
    // Tokens in a body: no browser or proxy cache may keep it.
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = (await response.json()) as Tokens;
    expect(tokens.status).toBe('signed-in');
    expect(tokens.expiresInSeconds).toBe(900);
    const claims = decodeJwt(tokens.accessToken);
    expect(claims).toMatchObject({ sub: org.adminId, email: org.adminEmail, email_verified: true });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(900);
    expect(typeof claims.sid).toBe('string');
    expect(typeof claims.jti).toBe('string');
    const list = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: tokens.accessToken });
    expect(list.status).toBe(200);
    const session = await stack.db.query('SELECT user_id, organization_id, expires_at FROM sessions WHERE id = $1', [claims.sid]);
    expect(session.rows[0]).toMatchObject({ user_id: org.adminId, organization_id: org.organizationId });
    const audit = await stack.db.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE action = 'session.created' AND actor_user_id = $1",
      [org.adminId],
    );
    expect(audit.rows[0].n).toBe(1);
  });

  it('answers an unknown email, a wrong password, no password set and another organisation with the same status and body', async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    const password = await withPassword(org);
    const attempts = [
      { organizationId: org.organizationId, email: `nobody-${uuidv7()}@example.test`, password },
      { organizationId: org.organizationId, email: org.adminEmail, password: `${password}x` },
      { organizationId: other.organizationId, email: other.adminEmail, password },
      { organizationId: other.organizationId, email: org.adminEmail, password },
    ];
    const answers = [];
    for (const body of attempts) {
      const response = await login(body);
      answers.push({ status: response.status, body: await response.text() });
    }
    expect(answers[0]).toEqual({
      status: 401,
      body: JSON.stringify({ error: { code: 'INVALID_CREDENTIALS', message: 'the email or password is wrong' } }),
    });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });

  it('refuses bad bodies with 400 and never echoes the password', async () => {
    const org = await stack.seedOrganization();
    const canary = `canary-password-${uuidv7()}`;
    for (const body of [
      { organizationId: 'nope', email: org.adminEmail, password: canary },
      { organizationId: org.organizationId, email: 'not-an-email', password: canary },
      { organizationId: org.organizationId, email: org.adminEmail, password: 'x'.repeat(257) },
      { organizationId: org.organizationId, email: org.adminEmail, password: canary, extra: true },
    ]) {
      const response = await login(body);
      expect(response.status).toBe(400);
      expect(await response.text()).not.toContain(canary);
    }
  });
});

describe('login throttles', () => {
  it('an address that used up its guesses at a user in tenant A is not limited for the same email in tenant B', async () => {
    const a = await stack.seedOrganization();
    const b = await stack.seedOrganization();
    // One person, a member of both organisations.
    await stack.db.query(
      "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'Viewer')",
      [uuidv7(), a.adminId, b.organizationId],
    );
    const password = await withPassword(a);
    // One address (the lock is per organisation, email and address: test/integration/sign-in-lockout.test.ts).
    const ip = freshIp();
    for (let i = 0; i < THROTTLE_LIMITS['login-address'].limit; i++) {
      expect((await login({ organizationId: a.organizationId, email: a.adminEmail, password: 'wrong' }, ip)).status).toBe(401);
    }
    const limited = await login({ organizationId: a.organizationId, email: a.adminEmail, password }, ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const elsewhere = await login({ organizationId: b.organizationId, email: a.adminEmail, password }, ip);
    expect(elsewhere.status).toBe(200);
  });

  it('counts per IP across emails, and another IP is unaffected', async () => {
    const org = await stack.seedOrganization();
    // login-ip's window is aligned to the clock (lib/runtime/throttle/limits.ts): a spray that crosses its end starts
    // counting again, so one that did is run once more from a fresh address (the next end is a window away).
    const windowOf = (ms: number) => Math.floor(ms / (THROTTLE_LIMITS['login-ip'].windowSeconds * 1000));
    for (let attempt = 0; ; attempt++) {
      const ip = freshIp();
      const logsBefore = stack.logs.length;
      const startedIn = windowOf(Date.now());
      const statuses = [];
      // Until the first 429: a hit whose Redis call missed its deadline (an overloaded machine) fails open, uncounted,
      // and says so in one WARN; the limit is then reached that many attempts later, never sooner.
      for (let i = 0; i < 150 && statuses.at(-1) !== 429; i++) {
        const response = await login(
          { organizationId: org.organizationId, email: `spray-${attempt}-${i}@example.test`, password: 'guess' },
          ip,
        );
        statuses.push(response.status);
      }
      if (windowOf(Date.now()) !== startedIn && attempt === 0) continue;
      const failedOpen = stack.logs
        .slice(logsBefore)
        .filter((line) => line.includes('throttle_unavailable') && line.includes('"login-ip"'));
      expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.length).toBe(101 + failedOpen.length);
      break;
    }
    expect((await login({ organizationId: org.organizationId, email: 'x@example.test', password: 'guess' })).status).toBe(401);
  });

  it('gives a counter found without a TTL one on the next hit', async () => {
    const org = await stack.seedOrganization();
    await withPassword(org);
    const { throttleWindow } = await import('../../lib/runtime/throttle/index.ts');
    const window = await throttleWindow(stack.deps, {
      action: 'login',
      scope: { kind: 'org', id: org.organizationId },
      subject: org.adminEmail,
    });
    await stack.redis.set(window.key, '3');
    expect(await stack.redis.ttl(window.key)).toBe(-1);
    await login({ organizationId: org.organizationId, email: org.adminEmail, password: 'wrong' });
    expect(await stack.redis.get(window.key)).toBe('4');
    const ttl = await stack.redis.ttl(window.key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(900);
  });

  it('with Redis down, login still works (the throttles fail open) and each skipped counter logs a WARN without key or address', async () => {
    const org = await stack.seedOrganization();
    const password = await withPassword(org);
    const ip = '127.9.9.9';
    stack.redisProxy.faults.set({ failCommands: ['evalsha', 'eval'] });
    let response: Response;
    try {
      response = await login({ organizationId: org.organizationId, email: org.adminEmail, password }, ip);
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(response.status).toBe(200);
    const warns = stack.logs.filter((line) => line.includes('throttle_unavailable'));
    expect(warns.length).toBeGreaterThanOrEqual(2);
    for (const line of warns) {
      expect(line).not.toContain(ip);
      expect(line).not.toContain(org.adminEmail);
      expect(line).not.toContain(':throttle:');
    }
  });
});

describe('refresh', () => {
  async function signedIn() {
    const org = await stack.seedOrganization();
    const password = await withPassword(org);
    const response = await login({ organizationId: org.organizationId, email: org.adminEmail, password });
    expect(response.status).toBe(200);
    return { org, tokens: (await response.json()) as Tokens };
  }

  it('rotates on every use: the new pair works, the session stays the same', async () => {
    const { org, tokens } = await signedIn();
    const response = await stack.request('POST', '/auth/refresh', { body: { refreshToken: tokens.refreshToken } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const next = (await response.json()) as Tokens;
    expect(next.refreshToken).not.toBe(tokens.refreshToken);
    expect(decodeJwt(next.accessToken).sid).toBe(decodeJwt(tokens.accessToken).sid);
    expect(next.sessionExpiresAtUtc).toBe(tokens.sessionExpiresAtUtc);
    expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: next.accessToken })).status).toBe(200);
    const again = await stack.request('POST', '/auth/refresh', { body: { refreshToken: next.refreshToken } });
    expect(again.status).toBe(200);
  });

  it('a reused refresh token revokes its whole session: every token of it is refused, and the newest refresh token too', async () => {
    const { org, tokens } = await signedIn();
    const rotated = (await (
      await stack.request('POST', '/auth/refresh', { body: { refreshToken: tokens.refreshToken } })
    ).json()) as Tokens;
    // Its successor used: the old token again is no retry (test/integration/sessions-refresh.test.ts has the grace).
    const newest = (await (
      await stack.request('POST', '/auth/refresh', { body: { refreshToken: rotated.refreshToken } })
    ).json()) as Tokens;
    const reuse = await stack.request('POST', '/auth/refresh', { body: { refreshToken: tokens.refreshToken } });
    expect(reuse.status).toBe(401);
    expect(((await reuse.json()) as { error: { code: string } }).error.code).toBe('REFRESH_INVALID');
    for (const token of [tokens.accessToken, rotated.accessToken, newest.accessToken]) {
      const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('TOKEN_REVOKED');
    }
    expect((await stack.request('POST', '/auth/refresh', { body: { refreshToken: newest.refreshToken } })).status).toBe(401);
    const sid = decodeJwt(tokens.accessToken).sid as string;
    const session = await stack.db.query('SELECT revoked_at FROM sessions WHERE id = $1', [sid]);
    expect(session.rows[0].revoked_at).toBeInstanceOf(Date);
    const ttl = await stack.redis.ttl(stack.deps.keys.revokedSession(sid));
    expect(ttl).toBeGreaterThanOrEqual(899);
    expect(ttl).toBeLessThanOrEqual(900);
    const audit = await stack.db.query("SELECT details FROM audit_events WHERE action = 'session.refresh_reused' AND actor_user_id = $1", [
      org.adminId,
    ]);
    expect(audit.rows).toHaveLength(1);
    expect(JSON.stringify(audit.rows[0])).not.toContain(tokens.refreshToken);
  });

  it('refuses an unknown, malformed or logged-out refresh token with one answer', async () => {
    const { tokens } = await signedIn();
    expect((await stack.request('POST', '/auth/logout', { token: tokens.accessToken })).status).toBe(204);
    const answers = new Set<string>();
    for (const refreshToken of [tokens.refreshToken, `rsr_${'A'.repeat(43)}`, 'garbage']) {
      const response = await stack.request('POST', '/auth/refresh', { body: { refreshToken } });
      answers.add(`${response.status} ${await response.text()}`);
    }
    expect([...answers]).toEqual([expect.stringMatching(/^401 .*REFRESH_INVALID/)]);
  });

  it('stores only the SHA-256 of refresh tokens and the KDF hash of passwords (canary, with a positive control)', async () => {
    const org = await stack.seedOrganization();
    const password = `canary-pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    const response = await login({ organizationId: org.organizationId, email: org.adminEmail, password });
    const tokens = (await response.json()) as Tokens;
    const refreshed = (await (
      await stack.request('POST', '/auth/refresh', { body: { refreshToken: tokens.refreshToken } })
    ).json()) as Tokens;
    const canaries = [password, tokens.refreshToken, refreshed.refreshToken];
    const dump = await stack.db.query(
      `SELECT (SELECT json_agg(t) FROM refresh_tokens t)::text AS r, (SELECT json_agg(u) FROM users u)::text AS u,
              (SELECT json_agg(s) FROM sessions s)::text AS s, (SELECT json_agg(a) FROM audit_events a)::text AS a`,
    );
    const keys = await stack.redis.keys('*');
    const values = await Promise.all(keys.map((key) => stack.redis.dumpBuffer(key)));
    const haystack = [
      JSON.stringify(dump.rows),
      keys.join('\n'),
      values.map((v) => v?.toString('latin1')).join('\n'),
      stack.logs.join('\n'),
    ].join('\n');
    // Positive control: the scan finds what is there (the refresh token's hash is stored).
    const { sha256Hex } = await import('../../lib/crypto/index.ts');
    expect(haystack).toContain(await sha256Hex(refreshed.refreshToken));
    for (const canary of canaries) expect(haystack).not.toContain(canary);
  });
});

// The per-address limiters: one subject per IPv4 address and per IPv6 /64 (lib/runtime/throttle/ip-subject.ts), the new
// limits on reset request and confirm, MFA verify and refresh, and their cheap refusals: a throttled or forged request
// costs no PostgreSQL round trip, and a throttled confirm spends no link.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { issueChallengeToken } from '../../lib/auth/mfa/challenge-token.ts';
import { randomBytes } from '../../lib/crypto/index.ts';
import { RESOLVE_SCOPE } from '../../lib/runtime/tenants/resolve-keys.ts';
import { ipSubject, THROTTLE_LIMITS, throttleWindow } from '../../lib/runtime/throttle/index.ts';
import { createFolderMailbox, readMailbox } from '../../local/mailbox/folder-mailbox.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const LINK_BASE = 'https://app.runstate.test/auth/password-reset';
let stack: TestStack;
let mailboxDir: string;
beforeAll(async () => {
  mailboxDir = await mkdtemp(join(tmpdir(), 'runstate-mailbox-'));
  stack = await startStack({ env: { PASSWORD_RESET_LINK_BASE: LINK_BASE }, deps: { notifier: createFolderMailbox(mailboxDir) } });
});
afterAll(async () => {
  await stack?.close();
  await rm(mailboxDir, { recursive: true, force: true });
});

type ErrorBody = { error: { code: string } };
const from = (ip: string) => ({ [TEST_CLIENT_IP_HEADER]: ip });
const hex = () => Buffer.from(randomBytes(2)).toString('hex');
/** A /64 of the documentation range (2001:db8::/32) no other test uses, and a random address inside it. */
const fresh64 = () => `2001:db8:${hex()}:${hex()}`;
const inside = (prefix: string) => `${prefix}:${hex()}:${hex()}:${hex()}:${hex()}`;

async function expectRateLimited(response: Response) {
  expect(response.status).toBe(429);
  expect(((await response.json()) as ErrorBody).error.code).toBe('RATE_LIMITED');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

/** Puts the address's counter of `action` at its limit, so the next request is the first one over it. */
async function exhaust(action: keyof typeof THROTTLE_LIMITS, ip: string) {
  // tenant-resolve counts under the resolve cache's hash tag; every other per-address limiter in the platform scope.
  const scope = action === 'tenant-resolve' ? RESOLVE_SCOPE : ({ kind: 'platform' } as const);
  const window = await throttleWindow(stack.deps, { action, scope, subject: ipSubject(ip) });
  await stack.redis.set(window.key, String(window.limit), 'EX', window.ttlSeconds);
}

describe('one subject per IPv6 /64', () => {
  it('an attacker rotating addresses inside one /64 is throttled as one address; another /64 is not', async () => {
    const org = await stack.seedOrganization();
    const prefix = fresh64();
    const { limit } = THROTTLE_LIMITS['password-reset-ip'];
    // A fresh email and a fresh address per request: only the per-address counter can stop this.
    const request = (ip: string) =>
      stack.request('POST', '/auth/password-reset', {
        body: { organizationId: org.organizationId, email: `walk-${uuidv7()}@example.test` },
        headers: from(ip),
      });
    for (let i = 0; i < limit; i++) expect((await request(inside(prefix))).status).toBe(202);
    await expectRateLimited(await request(inside(prefix)));
    // Written differently (expanded, upper case, a zone id): still the same /64.
    const [a, b, c, d] = prefix.split(':');
    await expectRateLimited(await request(`${[a, b, c, d].map((g) => g!.padStart(4, '0').toUpperCase()).join(':')}:0:0:0:1%eth0`));
    expect((await request(inside(fresh64()))).status).toBe(202);
  });

  // Every per-address limiter of an unauthenticated route (OIDC's start and failure audit: test/integration/oidc.test.ts):
  // a counter full for one address of a /64 refuses another address of it, whatever the route does with the address.
  const perRoute: Array<[string, keyof typeof THROTTLE_LIMITS, (ip: string) => Promise<Response>]> = [
    [
      'POST /auth/login',
      'login-ip',
      (ip) =>
        stack.request('POST', '/auth/login', {
          body: { organizationId: uuidv7(), email: `nobody-${uuidv7()}@example.test`, password: 'pw' },
          headers: from(ip),
        }),
    ],
    [
      'POST /invites/register',
      'login-ip',
      (ip) =>
        stack.request('POST', '/invites/register', {
          body: { token: `rsi_${'A'.repeat(43)}`, password: `pw-${uuidv7()}` },
          headers: from(ip),
        }),
    ],
    [
      'POST /auth/refresh',
      'refresh-ip',
      (ip) => stack.request('POST', '/auth/refresh', { body: { refreshToken: `rsr_${'A'.repeat(43)}` }, headers: from(ip) }),
    ],
    [
      'POST /auth/password-reset',
      'password-reset-ip',
      (ip) =>
        stack.request('POST', '/auth/password-reset', {
          body: { organizationId: uuidv7(), email: `nobody-${uuidv7()}@example.test` },
          headers: from(ip),
        }),
    ],
    [
      'POST /auth/password-reset/confirm',
      'password-reset-confirm-ip',
      (ip) =>
        stack.request('POST', '/auth/password-reset/confirm', {
          body: { token: `rsp_${'A'.repeat(43)}`, newPassword: `new-pw-${uuidv7()}` },
          headers: from(ip),
        }),
    ],
    [
      'POST /auth/mfa/verify',
      'mfa-verify-ip',
      (ip) =>
        stack.request('POST', '/auth/mfa/verify', {
          body: { challengeToken: issueChallengeToken(uuidv7(), uuidv7()), code: '123456' },
          headers: from(ip),
        }),
    ],
    [
      'POST /auth/mfa/recover',
      'mfa-recover-ip',
      (ip) =>
        stack.request('POST', '/auth/mfa/recover', {
          body: { challengeToken: issueChallengeToken(uuidv7(), uuidv7()), recoveryCode: 'aaaaa-aaaaa' },
          headers: from(ip),
        }),
    ],
    [
      'GET /public/tenants/resolve',
      'tenant-resolve',
      (ip) => stack.request('GET', `/public/tenants/resolve?slug=nobody-${hex()}${hex()}`, { headers: from(ip) }),
    ],
  ];

  it.each(perRoute)('%s (%s) counts a /64 as one address', async (_route, action, send) => {
    const prefix = fresh64();
    await exhaust(action, inside(prefix));
    await expectRateLimited(await send(inside(prefix)));
    // The control: a fresh /64 of the same route is not refused.
    expect((await send(inside(fresh64()))).status).not.toBe(429);
  });

  it('an IPv4-mapped IPv6 address counts as the IPv4 address it carries', async () => {
    const v4 = `10.250.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    await exhaust('refresh-ip', v4);
    const refresh = (ip: string) =>
      stack.request('POST', '/auth/refresh', { body: { refreshToken: `rsr_${'A'.repeat(43)}` }, headers: from(ip) });
    await expectRateLimited(await refresh(`::ffff:${v4}`));
    await expectRateLimited(await refresh(v4));
  });
});

describe('the new per-address limits', () => {
  async function resetLink(): Promise<{ token: string; email: string; organizationId: string }> {
    const org = await stack.seedOrganization();
    await setPassword(stack.db, org.adminId, `pw-${uuidv7()}`);
    await stack.request('POST', '/auth/password-reset', { body: { organizationId: org.organizationId, email: org.adminEmail } });
    const deadline = Date.now() + 5_000;
    for (;;) {
      const mail = (await readMailbox(mailboxDir)).find((m) => m.to === org.adminEmail);
      if (mail !== undefined)
        return { token: /#token=(\S+)/.exec(mail.text)![1]!, email: org.adminEmail, organizationId: org.organizationId };
      if (Date.now() > deadline) throw new Error('no reset mail');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('reset confirm: over the limit answers 429 before the link is touched; the same link works from another address', async () => {
    const { token } = await resetLink();
    const ip = inside(fresh64());
    await exhaust('password-reset-confirm-ip', ip);
    stack.neonProxy.stats.reset();
    const confirm = (from_: string) =>
      stack.request('POST', '/auth/password-reset/confirm', { body: { token, newPassword: `new-pw-${uuidv7()}` }, headers: from(from_) });
    await expectRateLimited(await confirm(ip));
    expect(stack.neonProxy.stats.httpRequests).toBe(0);
    expect((await confirm(inside(fresh64()))).status).toBe(204);
  });

  it('reset request: the per-address limit answers the same 429 for known and unknown emails', async () => {
    const { email, organizationId } = await resetLink();
    const ip = inside(fresh64());
    await exhaust('password-reset-ip', ip);
    for (const who of [email, `nobody-${uuidv7()}@example.test`]) {
      await expectRateLimited(
        await stack.request('POST', '/auth/password-reset', { body: { organizationId, email: who }, headers: from(ip) }),
      );
    }
  });

  it('MFA verify: a forged challenge costs no PostgreSQL round trip, and every attempt counts per address', async () => {
    const ip = inside(fresh64());
    const verify = () =>
      stack.request('POST', '/auth/mfa/verify', {
        body: { challengeToken: issueChallengeToken(uuidv7(), uuidv7()), code: '123456' },
        headers: from(ip),
      });
    stack.neonProxy.stats.reset();
    stack.redisProxy.stats.reset();
    const forged = await verify();
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as ErrorBody).error.code).toBe('MFA_INVALID');
    expect(stack.neonProxy.stats.httpRequests).toBe(0);
    // The per-address counter and the challenge's read: one pipeline, one request.
    expect(stack.redisProxy.stats.requests).toBe(1);
    await exhaust('mfa-verify-ip', ip);
    await expectRateLimited(await verify());
    expect(stack.neonProxy.stats.httpRequests).toBe(0);
  });

  it('MFA recover: a forged challenge costs no PostgreSQL round trip, and over the limit answers 429 before it', async () => {
    const ip = inside(fresh64());
    const recover = () =>
      stack.request('POST', '/auth/mfa/recover', {
        body: { challengeToken: issueChallengeToken(uuidv7(), uuidv7()), recoveryCode: 'aaaaa-aaaaa' },
        headers: from(ip),
      });
    stack.neonProxy.stats.reset();
    stack.redisProxy.stats.reset();
    const forged = await recover();
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as ErrorBody).error.code).toBe('MFA_INVALID');
    expect(stack.neonProxy.stats.httpRequests).toBe(0);
    expect(stack.redisProxy.stats.requests).toBe(1);
    await exhaust('mfa-recover-ip', ip);
    await expectRateLimited(await recover());
    expect(stack.neonProxy.stats.httpRequests).toBe(0);
  });

  it('refresh: over the limit answers 429 before PostgreSQL, and the token is not spent', async () => {
    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    const login = await stack.request('POST', '/auth/login', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    const { refreshToken } = (await login.json()) as { refreshToken: string };
    const ip = inside(fresh64());
    await exhaust('refresh-ip', ip);
    stack.neonProxy.stats.reset();
    await expectRateLimited(await stack.request('POST', '/auth/refresh', { body: { refreshToken }, headers: from(ip) }));
    expect(stack.neonProxy.stats.httpRequests).toBe(0);
    expect((await stack.request('POST', '/auth/refresh', { body: { refreshToken }, headers: from(inside(fresh64())) })).status).toBe(200);
  });
});

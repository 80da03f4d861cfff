// Password reset: one answer for known and unknown emails, a tenant-scoped throttle, a link built from configuration,
// a token consumed exactly once, and every earlier token of the user refused afterwards.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { sha256Hex } from '../../lib/crypto/index.ts';
import { createFolderMailbox, readMailbox } from '../../local/mailbox/folder-mailbox.ts';
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

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

const request = (organizationId: string, email: string, headers: Record<string, string> = {}) =>
  stack.request('POST', '/auth/password-reset', { body: { organizationId, email }, headers });
const confirm = (token: string, newPassword: string) =>
  stack.request('POST', '/auth/password-reset/confirm', { body: { token, newPassword } });

/** The reset token mailed to `email`, waiting for the delivery that runs after the answer. */
async function mailedToken(email: string, count = 1): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const messages = (await readMailbox(mailboxDir)).filter((m) => m.to === email);
    if (messages.length >= count) {
      const link = /(https:\S+#token=(\S+))/.exec(messages.at(-1)!.text);
      expect(link?.[1]?.startsWith(`${LINK_BASE}#token=`)).toBe(true);
      return link![2]!;
    }
    if (Date.now() > deadline) throw new Error(`no reset mail for ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function member(): Promise<{ org: Org; password: string }> {
  const org = await stack.seedOrganization();
  const password = `old-pw-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  return { org, password };
}

describe('request', () => {
  it('answers a known and an unknown email with the same status and body, and mails only the known one', async () => {
    const { org } = await member();
    const unknown = `nobody-${uuidv7()}@example.test`;
    const known = await request(org.organizationId, org.adminEmail);
    const other = await request(org.organizationId, unknown);
    expect(known.status).toBe(202);
    expect({ status: other.status, body: await other.text() }).toEqual({ status: known.status, body: await known.text() });
    await mailedToken(org.adminEmail);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await readMailbox(mailboxDir)).filter((m) => m.to === unknown)).toEqual([]);
  });

  it('builds the link from configuration, never from the Host header', async () => {
    const { org } = await member();
    await request(org.organizationId, org.adminEmail, { host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    const token = await mailedToken(org.adminEmail);
    const text = (await readMailbox(mailboxDir)).filter((m) => m.to === org.adminEmail).at(-1)!.text;
    expect(text).not.toContain('evil.example');
    expect(text).toContain(`${LINK_BASE}#token=${token}`);
  });

  it("throttles per (organisation, email): tenant A's requests do not limit the same email in tenant B", async () => {
    const a = await stack.seedOrganization();
    const b = await stack.seedOrganization();
    for (let i = 0; i < 5; i++) expect((await request(a.organizationId, a.adminEmail)).status).toBe(202);
    const limited = await request(a.organizationId, a.adminEmail);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await request(b.organizationId, a.adminEmail)).status).toBe(202);
  });

  it('gives a counter found without a TTL one on the next hit', async () => {
    const org = await stack.seedOrganization();
    const { throttleWindow } = await import('../../lib/runtime/throttle/index.ts');
    const window = await throttleWindow(stack.deps, {
      action: 'password-reset',
      scope: { kind: 'org', id: org.organizationId },
      subject: org.adminEmail,
    });
    await stack.redis.set(window.key, '2');
    await request(org.organizationId, org.adminEmail);
    expect(await stack.redis.get(window.key)).toBe('3');
    const ttl = await stack.redis.ttl(window.key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3_600);
  });
});

describe('confirm', () => {
  it('sets the password once, and every earlier token of the user is refused afterwards', async () => {
    const { org, password } = await member();
    const login = await stack.request('POST', '/auth/login', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    const { accessToken, refreshToken } = (await login.json()) as { accessToken: string; refreshToken: string };
    // A token of a session PostgreSQL knows from elsewhere (an identity provider's, seen at a logout of another token).
    const known = uuidv7();
    await stack.db.query('INSERT INTO sessions (id, user_id) VALUES ($1, $2)', [known, org.adminId]);
    const minted = await stack.token({ userId: org.adminId, sessionId: known });
    await request(org.organizationId, org.adminEmail);
    const token = await mailedToken(org.adminEmail);
    const newPassword = `new-pw-${uuidv7()}`;
    expect((await confirm(token, newPassword)).status).toBe(204);
    for (const bearer of [accessToken, minted]) {
      const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: bearer });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('TOKEN_REVOKED');
    }
    expect((await stack.request('POST', '/auth/refresh', { body: { refreshToken } })).status).toBe(401);
    const body = (p: string) => ({ organizationId: org.organizationId, email: org.adminEmail, password: p });
    expect((await stack.request('POST', '/auth/login', { body: body(password) })).status).toBe(401);
    expect((await stack.request('POST', '/auth/login', { body: body(newPassword) })).status).toBe(200);
    expect((await confirm(token, `again-${uuidv7()}`)).status).toBe(410);
  });

  it('50 parallel confirms of one token: exactly one sets the password', async () => {
    const { org } = await member();
    await request(org.organizationId, org.adminEmail);
    const token = await mailedToken(org.adminEmail);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => confirm(token, `parallel-pw-${i}-${uuidv7()}`).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 410)).toHaveLength(49);
  });

  it('a used, an expired and a never-issued token give the same answer', async () => {
    const { org } = await member();
    await request(org.organizationId, org.adminEmail);
    const used = await mailedToken(org.adminEmail);
    await confirm(used, `pw-${uuidv7()}`);
    await request(org.organizationId, org.adminEmail);
    const expired = await mailedToken(org.adminEmail, 2);
    const [key] = await stack.redis.keys(`*${await sha256Hex(expired)}`);
    await stack.redis.pexpire(key!, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const answers = new Set<string>();
    for (const token of [used, expired, `rsp_${'C'.repeat(43)}`, 'nonsense']) {
      const response = await confirm(token, `pw-${uuidv7()}`);
      answers.add(`${response.status} ${await response.text()}`);
    }
    expect([...answers]).toEqual([expect.stringMatching(/^410 .*"RESET_INVALID"/)]);
  });

  it('Redis down: confirm fails closed with 503 and the password is unchanged', async () => {
    const { org, password } = await member();
    await request(org.organizationId, org.adminEmail);
    const token = await mailedToken(org.adminEmail);
    stack.redisProxy.faults.set({ refuse: true });
    try {
      const response = await confirm(token, `pw-${uuidv7()}`);
      expect(response.status).toBe(503);
    } finally {
      stack.redisProxy.faults.clear();
    }
    const login = await stack.request('POST', '/auth/login', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    expect(login.status).toBe(200);
  });
});

describe('the reset page', () => {
  it('sends no referrer, no caching, and a CSP whose script hash is the script it serves', async () => {
    const response = await stack.request('GET', '/auth/password-reset');
    expect(response.status).toBe(200);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const csp = response.headers.get('content-security-policy') ?? '';
    const html = await response.text();
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    const digest = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script)))));
    expect(csp).toContain(`script-src 'sha256-${digest}'`);
    expect(csp).toContain("default-src 'none'");
  });
});

describe('canary', () => {
  it('keeps reset tokens and passwords out of keys, values, rows, logs and answers, with a positive control', async () => {
    const { org } = await member();
    const answers: string[] = [];
    answers.push(await (await request(org.organizationId, org.adminEmail)).text());
    const token = await mailedToken(org.adminEmail);
    const newPassword = `canary-new-pw-${uuidv7()}`;
    answers.push(await (await confirm(token, newPassword)).text());
    const keys = await stack.redis.keys('*');
    const values = await Promise.all(keys.map((key) => stack.redis.dumpBuffer(key)));
    const rows = await stack.db.query(
      `SELECT (SELECT json_agg(u) FROM users u)::text AS u, (SELECT json_agg(a) FROM audit_events a)::text AS a, (SELECT json_agg(s) FROM sessions s)::text AS s`,
    );
    const haystack = [
      keys.join('\n'),
      values.map((v) => v?.toString('latin1')).join('\n'),
      JSON.stringify(rows.rows),
      stack.logs.join('\n'),
      answers.join('\n'),
    ].join('\n');
    // Positive control: the audit row of this reset is there to be found.
    expect(haystack).toContain('auth.password_reset');
    for (const canary of [token, newPassword]) expect(haystack).not.toContain(canary);
  });
});

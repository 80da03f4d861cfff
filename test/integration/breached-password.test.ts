// The breached-password check on every route that sets a password (reset confirm, register from an invite), against
// the fake range API on a free loopback port: a listed password is refused with 400 and spends nothing (the link and
// the invite stay usable); only the SHA-1's 5-hex prefix travels; padding lines and the suffix's case do not matter;
// and a range API that is late, failing or talking nonsense is let through (fail-open, logged) or refused with its
// own 503 (fail-closed), the deadline passing for real against a fake that never answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { composeApp, TEST_CLIENT_IP_HEADER, type ComposedApp } from '../../local/stack/app.ts';
import { KNOWN_BREACHED_PASSWORDS, startFakeBreachedPasswords, type FakeBreachedPasswords } from '../../local/fakes/index.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import type { OutgoingMessage } from '../../lib/notify/notifier.ts';
import { singleUse } from '../../lib/runtime/single-use/index.ts';
import { resetSchema } from '../../lib/auth/password-reset/reset-token.ts';
import { rangeQuery } from '../../lib/auth/breached-password/range-query.ts';
import { fetchRange } from '../../lib/auth/breached-password/fetch-range.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

const TIMEOUT_MS = 500;
/** Listed by the fake beside the known ones, and looked for everywhere it must not be. */
const CANARY = `canary-breached-${uuidv7()}`;

const sent: OutgoingMessage[] = [];
const notifier = { send: async (message: OutgoingMessage) => void sent.push(message) };
let fake: FakeBreachedPasswords;
/** PASSWORD_BREACH_CHECK=fail-closed. */
let stack: TestStack;
/** The same services with PASSWORD_BREACH_CHECK=fail-open, its logs apart. */
let open: ComposedApp;
const openLogs: string[] = [];

beforeAll(async () => {
  fake = await startFakeBreachedPasswords({ passwords: { ...KNOWN_BREACHED_PASSWORDS, [CANARY]: 7 } });
  stack = await startStack({
    env: {
      INVITE_LINK_BASE: 'https://app.runstate.test/invites/accept',
      PASSWORD_BREACH_API_URL: fake.url,
      PASSWORD_BREACH_CHECK: 'fail-closed',
      PASSWORD_BREACH_TIMEOUT_MS: String(TIMEOUT_MS),
    },
    deps: { notifier },
  });
  open = composeApp(
    { ...stack.env, PASSWORD_BREACH_CHECK: 'fail-open' },
    { logger: createJsonLogger((line) => openLogs.push(line)), notifier },
  );
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
type Answer = { status: number; code: string | undefined; text: string };

let addresses = 0;
async function call(app: Pick<ComposedApp, 'request'>, path: string, body: unknown): Promise<Answer> {
  addresses += 1;
  const headers = { [TEST_CLIENT_IP_HEADER]: `127.7.${Math.floor(addresses / 250)}.${addresses % 250}` };
  const response = await app.request('POST', path, { body, headers });
  const text = await response.text();
  const code = text === '' ? undefined : (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  return { status: response.status, code, text };
}

/** A member with a live reset link (issued as the request route issues it). */
async function resetLink(): Promise<{ org: Org; token: string }> {
  const org = await stack.seedOrganization();
  const token = await singleUse.issue(stack.deps, 'password-reset', resetSchema, {
    userId: org.adminId,
    organizationId: org.organizationId,
    credentialEpoch: 0,
    issuedAtUtc: new Date().toISOString(),
    correlationId: 'breached-password-test',
  });
  return { org, token };
}
const confirm = (app: Pick<ComposedApp, 'request'>, token: string, newPassword: string) =>
  call(app, '/auth/password-reset/confirm', { token, newPassword });

async function passwordHash(userId: string): Promise<string | null> {
  return (await stack.db.query('SELECT password_hash FROM users WHERE id = $1', [userId])).rows[0].password_hash as string | null;
}

async function emailedInvite(): Promise<{ email: string; token: string }> {
  const org = await stack.seedOrganization();
  const { email } = newInvitee();
  const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email, roleCode: 'Viewer', delivery: 'email' },
  });
  expect(response.status).toBe(201);
  const token = /#token=(\S+)/.exec(sent.filter((m) => m.to === email).at(-1)?.text ?? '')?.[1];
  expect(token).toBeDefined();
  return { email, token: token! };
}
const register = (app: Pick<ComposedApp, 'request'>, token: string, password: string) =>
  call(app, '/invites/register', { token, password });

async function accountCount(email: string): Promise<number> {
  return (await stack.db.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [email])).rows[0].n as number;
}

/** The requests the fake received while `work` ran. */
async function askedDuring<T>(work: () => Promise<T>): Promise<{ result: T; asked: FakeBreachedPasswords['requests'] }> {
  const before = fake.requests.length;
  const result = await work();
  return { result, asked: fake.requests.slice(before) };
}

const fresh = () => `fresh-password-${uuidv7()}`;

describe('configuration', () => {
  it('points this stack at the fake on a loopback address, which the config would refuse to leave in test', () => {
    expect(stack.config.passwordBreach).toEqual({ mode: 'fail-closed', rangeUrl: fake.url, timeoutMs: TIMEOUT_MS });
    expect(new URL(fake.url).hostname).toBe('127.0.0.1');
    expect(open.config.passwordBreach).toMatchObject({ mode: 'fail-open', rangeUrl: fake.url });
  });
});

describe('reset confirm', () => {
  it('refuses a breached password with 400 PASSWORD_BREACHED, leaving the password as it was and the link usable', async () => {
    const { org, token } = await resetLink();
    const before = await passwordHash(org.adminId);
    const { result: refused, asked } = await askedDuring(() => confirm(stack, token, 'password1234'));
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 400, code: 'PASSWORD_BREACHED' });
    expect(await passwordHash(org.adminId)).toBe(before);
    const { prefix } = await rangeQuery('password1234');
    expect(asked.map((r) => ({ url: r.url, addPadding: r.addPadding }))).toEqual([{ url: `/range/${prefix}`, addPadding: 'true' }]);
    // It names itself, as the public API asks of every caller.
    expect(asked[0]!.headers).toContain('"runstate-breached-password-check"');

    // The same link sets a password that is not listed.
    expect((await confirm(stack, token, fresh())).status).toBe(204);
    expect(await passwordHash(org.adminId)).not.toBe(before);
  });

  it('asks nothing for a link that does not exist: 410, as without the check', async () => {
    const { result, asked } = await askedDuring(() => confirm(stack, `rsp_${'A'.repeat(43)}`, 'password1234'));
    expect({ status: result.status, code: result.code }).toEqual({ status: 410, code: 'RESET_INVALID' });
    expect(asked).toEqual([]);
  });

  it('matches a suffix the range API writes in lowercase', async () => {
    const { token } = await resetLink();
    fake.faults.set({ lowercase: true });
    try {
      expect((await confirm(stack, token, 'qwerty123456')).code).toBe('PASSWORD_BREACHED');
    } finally {
      fake.faults.clear();
    }
  });

  it('ignores padding lines: a suffix listed with count 0 is not breached', async () => {
    const { org, token } = await resetLink();
    const password = fresh();
    const { prefix, suffix } = await rangeQuery(password);
    // What a padded answer for this prefix could hold: other hashes, and this one as padding.
    fake.faults.set({ body: `${'0'.repeat(35)}:12\r\n${suffix}:0\r\n${'F'.repeat(35)}:0` });
    try {
      const { result, asked } = await askedDuring(() => confirm(stack, token, password));
      expect(result.status).toBe(204);
      expect(asked.map((r) => r.url)).toEqual([`/range/${prefix}`]);
    } finally {
      fake.faults.clear();
    }
    expect(await passwordHash(org.adminId)).not.toBeNull();
  });
});

describe('register from an invite', () => {
  it('refuses a breached password with 400, creating no account and leaving the invite registrable', async () => {
    const { email, token } = await emailedInvite();
    const refused = await register(stack, token, '123456789012');
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 400, code: 'PASSWORD_BREACHED' });
    expect(await accountCount(email)).toBe(0);
    expect((await register(stack, token, fresh())).status).toBe(201);
    expect(await accountCount(email)).toBe(1);
  });

  it('lets a repeat sign in with the password it registered, asking nothing (no password is being set)', async () => {
    const { token } = await emailedInvite();
    const password = fresh();
    expect((await register(stack, token, password)).status).toBe(201);
    const { result, asked } = await askedDuring(() => register(stack, token, password));
    expect(result.status).toBe(201);
    expect(asked).toEqual([]);
  });
});

describe('a range API that cannot answer', () => {
  const failures = [
    { name: 'never answers (the deadline passes)', faults: { hang: true }, failure: 'timeout', status: undefined },
    { name: 'answers 500', faults: { status: 500 }, failure: 'status', status: 500 },
    {
      name: 'answers 200 with something that is no range',
      faults: { body: '<html>maintenance</html>' },
      failure: 'malformed',
      status: undefined,
    },
  ] as const;

  it.each(failures)('fail-closed: $name → 503 BREACH_CHECK_UNAVAILABLE, the link unspent', async ({ faults, failure, status }) => {
    const { org, token } = await resetLink();
    const before = await passwordHash(org.adminId);
    fake.faults.set(faults);
    const started = performance.now();
    let refused: Answer;
    try {
      refused = await confirm(stack, token, fresh());
    } finally {
      fake.faults.clear();
    }
    const elapsed = performance.now() - started;
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 503, code: 'BREACH_CHECK_UNAVAILABLE' });
    // A fake that never answers: only the deadline can have ended the wait (timers may round a millisecond down).
    if (failure === 'timeout') expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 1);
    expect(await passwordHash(org.adminId)).toBe(before);
    const logged = stack.logs.filter((line) => line.includes('"event":"password_breach_check_failed"')).map((line) => JSON.parse(line));
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 'warn', mode: 'fail-closed', allowed: false, failure, ...(status !== undefined ? { status } : {}) }),
    );
    expect((await confirm(stack, token, fresh())).status).toBe(204);
  });

  it.each(failures)('fail-open: $name → allowed, and logged as a WARN', async ({ faults, failure, status }) => {
    const { org, token } = await resetLink();
    const before = await passwordHash(org.adminId);
    fake.faults.set(faults);
    let allowed: Answer;
    try {
      allowed = await confirm(open, token, fresh());
    } finally {
      fake.faults.clear();
    }
    expect(allowed.status).toBe(204);
    expect(await passwordHash(org.adminId)).not.toBe(before);
    const logged = openLogs.filter((line) => line.includes('"event":"password_breach_check_failed"')).map((line) => JSON.parse(line));
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 'warn', mode: 'fail-open', allowed: true, failure, ...(status !== undefined ? { status } : {}) }),
    );
  });

  it('fail-open still refuses a password the range API lists', async () => {
    const { token } = await resetLink();
    expect((await confirm(open, token, 'correcthorsebatterystaple')).code).toBe('PASSWORD_BREACHED');
  });
});

describe('fetchRange', () => {
  it('tells the failures apart: a redirect is a status, an oversized body unreadable, a closed port unreachable', async () => {
    fake.faults.set({ status: 302 });
    try {
      expect(await fetchRange(fake.url, 'ABCDE', TIMEOUT_MS)).toEqual({ ok: false, failure: 'status', status: 302 });
      fake.faults.set({ status: undefined, body: `${'A'.repeat(35)}:1\r\n`.repeat(8_000) });
      expect(await fetchRange(fake.url, 'ABCDE', TIMEOUT_MS)).toEqual({ ok: false, failure: 'unreadable' });
    } finally {
      fake.faults.clear();
    }
    const closed = await startFakeBreachedPasswords();
    await closed.close();
    expect(await fetchRange(closed.url, 'ABCDE', TIMEOUT_MS)).toEqual({ ok: false, failure: 'unreachable' });
  });
});

describe('canary', () => {
  it('the password, its SHA-1 and its suffix appear in no log, answer or request the fake received; the prefix in no log', async () => {
    const { prefix, suffix } = await rangeQuery(CANARY);
    const sha1 = `${prefix}${suffix}`;
    const { token } = await resetLink();
    const invite = await emailedInvite();
    const answers: Answer[] = [];
    const underFault = async (faults: Parameters<FakeBreachedPasswords['faults']['set']>[0], work: () => Promise<Answer[]>) => {
      fake.faults.set(faults);
      try {
        answers.push(...(await work()));
      } finally {
        fake.faults.clear();
      }
    };
    const { asked } = await askedDuring(async () => {
      answers.push(await confirm(stack, token, CANARY), await register(stack, invite.token, CANARY));
      answers.push(await confirm(open, token, CANARY), await register(open, invite.token, CANARY));
      await underFault({ status: 503 }, async () => [await confirm(stack, token, CANARY), await register(stack, invite.token, CANARY)]);
      await underFault({ body: 'nonsense' }, async () => [await confirm(stack, token, CANARY)]);
      // Last, as they spend the link and the invite: fail-open lets the canary through.
      await underFault({ status: 503 }, async () => [await confirm(open, token, CANARY), await register(open, invite.token, CANARY)]);
    });
    // Positive controls: the canary was refused as breached, then refused unchecked (fail-closed), then let through.
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 503, 503, 503, 204, 201]);
    expect(stack.logs.some((line) => line.includes('password_breach_check_failed'))).toBe(true);
    expect(openLogs.some((line) => line.includes('password_breach_check_failed'))).toBe(true);

    // Only the 5-character prefix travelled.
    expect(asked.length).toBe(9);
    for (const request of asked) expect(request.url).toBe(`/range/${prefix}`);
    const travelled = asked.map((r) => `${r.url}\n${r.headers}`).join('\n');
    const everywhere = [travelled, ...answers.map((a) => a.text), ...stack.logs, ...openLogs].join('\n');
    for (const form of [CANARY, sha1, suffix]) {
      expect(everywhere).not.toContain(form);
      expect(everywhere.toLowerCase()).not.toContain(form.toLowerCase());
    }
    // The prefix narrows the password to one range: no breach log line carries it in any field (the correlation id and
    // time aside, random hex and digits that could hold any five characters).
    for (const line of [...stack.logs, ...openLogs].filter((l) => l.includes('password_breach'))) {
      const { ts: _ts, correlationId: _correlationId, ...fields } = JSON.parse(line) as Record<string, unknown>;
      expect(JSON.stringify(fields).toUpperCase()).not.toContain(prefix);
    }
  });
});

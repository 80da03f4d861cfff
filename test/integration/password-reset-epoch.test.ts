// A password change ends what the old password or an earlier link started (migrations/0015_credential_epoch.sql): every
// earlier reset link, a pending MFA challenge, and a login between its password check and its session; two links
// used at once leave exactly one winner.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { openSessionAtEpoch } from '../../lib/auth/sessions/open-session.ts';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
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
type ErrorBody = { error: { code: string } };

const confirm = (token: string, newPassword: string) =>
  stack.request('POST', '/auth/password-reset/confirm', { body: { token, newPassword } });
const login = (org: Org, password: string) =>
  stack.request('POST', '/auth/login', { body: { organizationId: org.organizationId, email: org.adminEmail, password } });

/** Asks for a link and returns the token of the `count`-th mail to the admin (the delivery runs after the answer). */
async function link(org: Org, count: number): Promise<string> {
  expect(
    (await stack.request('POST', '/auth/password-reset', { body: { organizationId: org.organizationId, email: org.adminEmail } })).status,
  ).toBe(202);
  const deadline = Date.now() + 5_000;
  for (;;) {
    const messages = (await readMailbox(mailboxDir)).filter((m) => m.to === org.adminEmail);
    if (messages.length >= count) return /#token=(\S+)/.exec(messages[count - 1]!.text)![1]!;
    if (Date.now() > deadline) throw new Error(`no reset mail number ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function member(): Promise<{ org: Org; password: string }> {
  const org = await stack.seedOrganization();
  const password = `old-pw-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  return { org, password };
}

async function epochOf(userId: string): Promise<number> {
  return (await stack.db.query('SELECT credential_epoch FROM users WHERE id = $1', [userId])).rows[0].credential_epoch as number;
}

async function sessionCount(userId: string): Promise<number> {
  return (await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [userId])).rows[0].n as number;
}

async function expectResetInvalid(response: Response) {
  expect(response.status).toBe(410);
  expect(((await response.json()) as ErrorBody).error.code).toBe('RESET_INVALID');
}

describe('earlier reset links', () => {
  it('a reset ends every earlier link of the user: the older link answers 410 and the password stays the new one', async () => {
    const { org } = await member();
    const first = await link(org, 1);
    const second = await link(org, 2);
    const chosen = `chosen-pw-${uuidv7()}`;
    expect((await confirm(second, chosen)).status).toBe(204);
    await expectResetInvalid(await confirm(first, `attacker-pw-${uuidv7()}`));
    expect((await login(org, chosen)).status).toBe(200);
    // Consumed on the way to the refusal: the old link is gone from Redis too, not merely refused once.
    await expectResetInvalid(await confirm(first, `attacker-pw-${uuidv7()}`));
  });

  it('any password change counts, not only a reset: a link issued before it is refused', async () => {
    const { org } = await member();
    const token = await link(org, 1);
    const before = await epochOf(org.adminId);
    const changed = `changed-elsewhere-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, changed);
    expect(await epochOf(org.adminId)).toBe(before + 1);
    await expectResetInvalid(await confirm(token, `late-link-pw-${uuidv7()}`));
    expect((await login(org, changed)).status).toBe(200);
  });

  it('two links used at once: exactly one sets the password, the other answers 410, one audit row, no session left open', async () => {
    for (let round = 0; round < 5; round++) {
      const { org, password } = await member();
      expect((await login(org, password)).status).toBe(200);
      const tokens = [await link(org, 1), await link(org, 2)];
      const passwords = tokens.map((_, i) => `race-${i}-${uuidv7()}`);
      const responses = await Promise.all(tokens.map((token, i) => confirm(token, passwords[i]!)));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([204, 410]);
      const winner = responses.findIndex((r) => r.status === 204);
      expect((await login(org, passwords[1 - winner]!)).status).toBe(401);
      const audit = await stack.db.query(
        "SELECT count(*)::int AS n FROM audit_events WHERE action = 'auth.password_reset' AND actor_user_id = $1",
        [org.adminId],
      );
      expect(audit.rows[0].n).toBe(1);
      const open = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1 AND revoked_at IS NULL', [org.adminId]);
      expect(open.rows[0].n).toBe(0);
      expect((await login(org, passwords[winner]!)).status).toBe(200);
    }
  });
});

describe('logins that passed the old password', () => {
  async function mfaMember(): Promise<{ org: Org; password: string; secret: Uint8Array }> {
    const { org, password } = await member();
    // Enrolment needs the password too (docs/design/mfa.md#step-up).
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: org.adminToken, body: { password } });
    const secret = base32Decode(((await enrolled.json()) as { secret: string }).secret);
    const code = await totpCode(secret, totpStep(Date.now()) - 1);
    expect((await stack.request('POST', '/auth/mfa/enrol/confirm', { token: org.adminToken, body: { code } })).status).toBe(200);
    return { org, password, secret };
  }

  async function challenge(org: Org, password: string): Promise<string> {
    const response = await login(org, password);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; challengeToken: string };
    expect(body.status).toBe('mfa-required');
    return body.challengeToken;
  }

  it('an MFA challenge issued before a reset is refused after it, with the right code, and opens no session', async () => {
    const { org, password, secret } = await mfaMember();
    const pending = await challenge(org, password);
    const token = await link(org, 1);
    const chosen = `after-reset-${uuidv7()}`;
    expect((await confirm(token, chosen)).status).toBe(204);
    const sessionsBefore = await sessionCount(org.adminId);
    const code = await totpCode(secret, totpStep(Date.now()));
    const refused = await stack.request('POST', '/auth/mfa/verify', { body: { challengeToken: pending, code } });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as ErrorBody).error.code).toBe('MFA_INVALID');
    expect(await sessionCount(org.adminId)).toBe(sessionsBefore);
    // The user signs in again with the new password and the next code, and that challenge works.
    const fresh = await challenge(org, chosen);
    const next = await totpCode(secret, totpStep(Date.now()) + 1);
    expect((await stack.request('POST', '/auth/mfa/verify', { body: { challengeToken: fresh, code: next } })).status).toBe(200);
  });

  it('a session is opened only at the epoch the password was checked at: a change in between opens nothing', async () => {
    const { org } = await member();
    const epoch = await epochOf(org.adminId);
    await setPassword(stack.db, org.adminId, `changed-${uuidv7()}`);
    const base = { userId: org.adminId, email: org.adminEmail, organizationId: org.organizationId, userAgent: undefined };
    const stale = await openSessionAtEpoch(stack.deps, { ...base, method: 'password', correlationId: uuidv7(), credentialEpoch: epoch });
    expect(stale).toBe('credentials-changed');
    expect(await sessionCount(org.adminId)).toBe(0);
    const current = await openSessionAtEpoch(stack.deps, {
      ...base,
      method: 'password',
      correlationId: uuidv7(),
      credentialEpoch: epoch + 1,
    });
    expect(current).toMatchObject({ organizationId: org.organizationId });
    expect(await sessionCount(org.adminId)).toBe(1);
  });

  it('a session opening while a reset commits either waits and is refused, or is revoked by the reset: none survives', async () => {
    for (let round = 0; round < 5; round++) {
      const { org } = await member();
      const token = await link(org, 1);
      const epoch = await epochOf(org.adminId);
      const base = { userId: org.adminId, email: org.adminEmail, organizationId: org.organizationId, userAgent: undefined };
      const [opened, reset] = await Promise.all([
        openSessionAtEpoch(stack.deps, { ...base, method: 'password', correlationId: uuidv7(), credentialEpoch: epoch }),
        confirm(token, `racing-${uuidv7()}`),
      ]);
      expect(reset.status).toBe(204);
      const open = await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1 AND revoked_at IS NULL', [org.adminId]);
      expect(open.rows[0].n, `round ${round}: ${typeof opened === 'string' ? opened : 'opened'}`).toBe(0);
    }
  });
});

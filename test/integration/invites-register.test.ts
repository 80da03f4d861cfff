// Registering through an emailed invitation: a newcomer's account is created once (racing calls, lost replies and a
// PostgreSQL outage included), an admin's own token never creates one, an existing account is sent to sign in, and
// neither the token nor the password appears anywhere but the message and the request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import type { OutgoingMessage } from '../../lib/notify/notifier.ts';
import { invites } from '../../lib/runtime/invites/index.ts';
import { PBKDF2_ITERATIONS } from '../../lib/auth/password.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

const LINK_BASE = 'https://app.runstate.test/invites/accept';
const sent: OutgoingMessage[] = [];
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({
    env: { INVITE_LINK_BASE: LINK_BASE },
    deps: { notifier: { send: async (message) => void sent.push(message) } },
  });
});
afterAll(async () => stack?.close());

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;
type Person = ReturnType<typeof newInvitee>;
type Answer = { status: number; body: Record<string, unknown> };

let ipCounter = 0;
// One address per test, so the per-address sign-in throttle of one test never answers for another.
const freshIp = () => `127.4.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

async function emailedInvite(org: Org, person: Person) {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email: person.email, roleCode: 'Viewer', delivery: 'email' },
  });
  expect(response.status).toBe(201);
  const { invite } = (await response.json()) as { invite: { inviteId: string } };
  const message = sent.filter((m) => m.to === person.email).at(-1);
  const token = /#token=(\S+)/.exec(message?.text ?? '')?.[1];
  expect(token).toBeDefined();
  return { inviteId: invite.inviteId, token: token! };
}

async function register(token: string, password: string, ip = freshIp()): Promise<Answer> {
  const response = await stack.request('POST', '/invites/register', {
    body: { token, password },
    headers: { [TEST_CLIENT_IP_HEADER]: ip },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const canaryPassword = () => `canary-password-${uuidv7()}`;

/** Sign-in with the invitee's email and a password in the invite's organisation, from an address of its own. */
function signIn(org: Org, person: Person, password: string, ip = freshIp()): Promise<Response> {
  return stack.request('POST', '/auth/login', {
    body: { organizationId: org.organizationId, email: person.email, password },
    headers: { [TEST_CLIENT_IP_HEADER]: ip },
  });
}
const errorCode = (answer: Answer) => (answer.body.error as { code?: string } | undefined)?.code;

async function accounts(email: string) {
  const rows = await stack.db.query<{ id: string; has_password: boolean }>(
    'SELECT id, password_hash IS NOT NULL AS has_password FROM users WHERE email = $1',
    [email],
  );
  return rows.rows;
}

async function sessionCount(userId: string): Promise<number> {
  return (await stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [userId])).rows[0].n as number;
}

async function storedValue(key: string): Promise<string> {
  const type = await stack.redis.type(key);
  if (type === 'string') return (await stack.redis.get(key)) ?? '';
  if (type === 'zset') return (await stack.redis.zrange(key, 0, -1, 'WITHSCORES')).join(' ');
  if (type === 'hash') return JSON.stringify(await stack.redis.hgetall(key));
  if (type === 'set') return (await stack.redis.smembers(key)).join(' ');
  if (type === 'list') return (await stack.redis.lrange(key, 0, -1)).join(' ');
  return '';
}

async function auditCount(targetId: string, action: string): Promise<number> {
  const rows = await stack.db.query('SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = $2', [targetId, action]);
  return rows.rows[0].n as number;
}

async function activeInviteIds(org: Org): Promise<string[]> {
  const response = await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
  return ((await response.json()) as { invites: Array<{ inviteId: string }> }).invites.map((invite) => invite.inviteId);
}

describe('POST /invites/register', () => {
  it('creates the account with the role, signs it in, audits both events, and leaves neither secret anywhere', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { inviteId, token } = await emailedInvite(org, person);
    const password = canaryPassword();
    const answer = await register(token, password);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ status: 'signed-in', tokenType: 'Bearer', organizationId: org.organizationId });
    const userId = answer.body.userId as string;

    const [account] = await accounts(person.email);
    expect(account).toEqual({ id: userId, has_password: true });
    const roles = await stack.db.query('SELECT role_code FROM role_assignments WHERE user_id = $1 AND organization_id = $2', [
      userId,
      org.organizationId,
    ]);
    expect(roles.rows).toEqual([{ role_code: 'Viewer' }]);
    expect(await auditCount(inviteId, 'invite.accepted')).toBe(1);
    expect(await auditCount(userId, 'user.registered')).toBe(1);
    expect(await activeInviteIds(org)).not.toContain(inviteId);

    // The access token is a working session of the new account, and the password signs in like any other.
    const sessions = await stack.request('GET', '/auth/sessions', { token: answer.body.accessToken as string });
    expect(sessions.status).toBe(200);
    const login = await signIn(org, person, password);
    expect(login.status).toBe(200);
    // The signed-in body of /auth/login, field for field; the password stored by sign-in's KDF at its cost.
    const loginBody = (await login.json()) as Record<string, unknown>;
    expect(Object.keys(answer.body).sort()).toEqual(Object.keys(loginBody).sort());
    expect(loginBody).toMatchObject({ status: 'signed-in', userId, organizationId: org.organizationId });
    const stored = await stack.db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [userId]);
    expect(stored.rows[0]!.password_hash).toMatch(new RegExp(`^pbkdf2-sha256\\$${PBKDF2_ITERATIONS}\\$`));

    const audit = await stack.db.query('SELECT details FROM audit_events WHERE organization_id = $1', [org.organizationId]);
    const keys = await stack.redis.keys('*');
    // Read as what they are (a DUMP may compress a long value, so a secret in it need not appear as text).
    const values = await Promise.all(keys.map((key) => storedValue(key)));
    expect(values.join('\n')).toContain(org.organizationId);
    for (const secret of [token, password]) {
      expect(JSON.stringify(audit.rows)).not.toContain(secret);
      expect(stack.logs.join('\n')).not.toContain(secret);
      expect(keys.join('\n')).not.toContain(secret);
      expect(values.join('\n')).not.toContain(secret);
      expect(JSON.stringify(answer.body)).not.toContain(secret);
    }
  });

  it("refuses an admin's own token (delivery none) with 403 INVITE_NOT_DELIVERED and creates nothing", async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: person.email, roleCode: 'Viewer' },
    });
    const { invite, token } = (await created.json()) as { invite: { inviteId: string }; token: string };
    const answer = await register(token, canaryPassword());
    expect(answer.status).toBe(403);
    expect(errorCode(answer)).toBe('INVITE_NOT_DELIVERED');
    expect(await accounts(person.email)).toEqual([]);
    expect(await activeInviteIds(org)).toContain(invite.inviteId);
    // The real invitee, signed in elsewhere, can still accept it.
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token } })).status).toBe(200);
  });

  it('sends an email that already has an account to sign in (409 ACCOUNT_EXISTS); the invite stays for accept', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [person.userId, person.email]);
    const { inviteId, token } = await emailedInvite(org, person);
    const answer = await register(token, canaryPassword());
    expect(answer.status).toBe(409);
    expect(errorCode(answer)).toBe('ACCOUNT_EXISTS');
    expect(await accounts(person.email)).toEqual([{ id: person.userId, has_password: false }]);
    expect(await activeInviteIds(org)).toContain(inviteId);
    const bearer = await stack.token({ userId: person.userId, email: person.email });
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token } })).status).toBe(200);
  });

  it('two registrations racing on one token make one account; the same password signs both into it', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { inviteId, token } = await emailedInvite(org, person);
    const password = canaryPassword();
    const answers = await Promise.all(Array.from({ length: 4 }, () => register(token, password)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    const [account] = await accounts(person.email);
    expect(new Set(answers.map((a) => a.body.userId))).toEqual(new Set([account!.id]));
    expect(await accounts(person.email)).toHaveLength(1);
    expect(await auditCount(inviteId, 'invite.accepted')).toBe(1);
    expect(await auditCount(account!.id, 'user.registered')).toBe(1);
  });

  it('racing with different passwords still makes one account, and only its password signs in', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { token } = await emailedInvite(org, person);
    const passwords = [canaryPassword(), canaryPassword(), canaryPassword()];
    const answers = await Promise.all(passwords.map((password) => register(token, password)));
    const winners = answers.filter((a) => a.status === 201);
    expect(winners.length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((a) => a.status !== 201).every((a) => a.status === 410)).toBe(true);
    expect(await accounts(person.email)).toHaveLength(1);
    expect(new Set(winners.map((a) => a.body.userId)).size).toBe(1);
  });

  it('a newcomer whose reply was lost signs the same account in again; another password is 410', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { token } = await emailedInvite(org, person);
    const password = canaryPassword();
    const first = await register(token, password);
    expect(first.status).toBe(201);
    const again = await register(token, password);
    expect(again.status).toBe(201);
    expect(again.body.userId).toBe(first.body.userId);
    expect(again.body.refreshToken).not.toBe(first.body.refreshToken);
    const wrong = await register(token, canaryPassword());
    expect(wrong.status).toBe(410);
    expect(errorCode(wrong)).toBe('INVITE_INVALID');
    expect(await accounts(person.email)).toHaveLength(1);
  });

  it('a repeat after the account confirmed MFA signs nobody in with the password alone: 409 ACCOUNT_EXISTS, no session', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { token } = await emailedInvite(org, person);
    const password = canaryPassword();
    const first = await register(token, password);
    expect(first.status).toBe(201);
    const accessToken = String(first.body.accessToken);
    const userId = String(first.body.userId);
    const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: accessToken, body: { password } });
    expect(enrolled.status).toBe(201);
    const { secret } = (await enrolled.json()) as { secret: string };
    const code = await totpCode(base32Decode(secret), totpStep(Date.now()));
    expect((await stack.request('POST', '/auth/mfa/enrol/confirm', { token: accessToken, body: { code } })).status).toBe(200);
    const sessionsBefore = await sessionCount(userId);
    // The invite link and the password (a mailbox and a password stolen together) within the receipt's hour.
    const again = await register(token, password);
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe('ACCOUNT_EXISTS');
    expect(again.body).not.toHaveProperty('accessToken');
    expect(await sessionCount(userId)).toBe(sessionsBefore);
    // Sign-in is where the code is asked for.
    const login = await signIn(org, person, password);
    expect(((await login.json()) as { status: string }).status).toBe('mfa-required');
  });

  it('a repeat that passed the password while a password change commits opens no session (the credential epoch)', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { token } = await emailedInvite(org, person);
    const password = canaryPassword();
    const first = await register(token, password);
    expect(first.status).toBe(201);
    const userId = String(first.body.userId);
    const sessionsBefore = await sessionCount(userId);
    // A password change holds the user's row, uncommitted: the repeat still reads (and verifies) the old password.
    await stack.db.query('BEGIN');
    let answered = false;
    let pending: Promise<Answer>;
    try {
      await stack.db.query("UPDATE users SET password_hash = 'changed-elsewhere' WHERE id = $1", [userId]);
      pending = register(token, password).finally(() => (answered = true));
      // At the epoch the repeat read, its session waits for the change (a session opened without it would be back by now).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(answered).toBe(false);
    } finally {
      await stack.db.query('COMMIT');
    }
    const again = await pending;
    expect(again.status).toBe(410);
    expect(errorCode(again)).toBe('INVITE_INVALID');
    expect(await sessionCount(userId)).toBe(sessionsBefore);
  });

  it('is 410 for a token replaced by a resend, a cancelled invite, one accepted by someone, or a malformed token', async () => {
    const org = await stack.seedOrganization();
    const resent = newInvitee();
    const first = await emailedInvite(org, resent);
    expect(
      (await stack.request('POST', `/orgs/${org.organizationId}/invites/${first.inviteId}/resend`, { token: org.adminToken })).status,
    ).toBe(200);
    expect((await register(first.token, canaryPassword())).status).toBe(410);

    const cancelled = newInvitee();
    const second = await emailedInvite(org, cancelled);
    await stack.request('DELETE', `/orgs/${org.organizationId}/invites/${second.inviteId}`, { token: org.adminToken });
    expect((await register(second.token, canaryPassword())).status).toBe(410);

    const accepted = newInvitee();
    const third = await emailedInvite(org, accepted);
    const bearer = await stack.token({ userId: accepted.userId, email: accepted.email });
    expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token: third.token } })).status).toBe(200);
    expect((await register(third.token, canaryPassword())).status).toBe(410);

    expect((await register('rsi_not-a-token', canaryPassword())).status).toBe(410);
    for (const person of [resent, cancelled]) expect(await accounts(person.email)).toEqual([]);
  });

  it('is counted by sign-in throttles: an address whose guesses at the email are spent is 429 before anything is consumed; another address registers', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { inviteId, token } = await emailedInvite(org, person);
    const ip = freshIp();
    for (let i = 0; i < 10; i += 1) {
      const login = await signIn(org, person, canaryPassword(), ip);
      expect(login.status).toBe(401);
    }
    const answer = await register(token, canaryPassword(), ip);
    expect(answer.status).toBe(429);
    expect(await activeInviteIds(org)).toContain(inviteId);
    expect(await accounts(person.email)).toEqual([]);
    // The lock is the guessing address's, not the newcomer's (docs/design/sign-in.md#login-throttles).
    expect((await register(token, canaryPassword())).status).toBe(201);
  });

  it('with PostgreSQL down after the consume: 503, then a repeat finishes to one account', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { inviteId, token } = await emailedInvite(org, person);
    const password = canaryPassword();
    // The account read succeeds; the registration's transaction is refused (it writes the outcome row first).
    await stack.db.query(`CREATE OR REPLACE FUNCTION test_refuse_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.invite_id = '${inviteId}' THEN RAISE EXCEPTION 'outcome refused by test'; END IF; RETURN NEW; END $$`);
    await stack.db.query(
      'CREATE TRIGGER test_refuse_outcome BEFORE INSERT ON invite_outcomes FOR EACH ROW EXECUTE FUNCTION test_refuse_outcome()',
    );
    try {
      expect((await register(token, password)).status).toBeGreaterThanOrEqual(500);
    } finally {
      await stack.db.query('DROP TRIGGER test_refuse_outcome ON invite_outcomes');
      await stack.db.query('DROP FUNCTION test_refuse_outcome()');
    }
    expect(await accounts(person.email)).toEqual([]);
    // Held for the registration, not handed to anyone else meanwhile.
    expect(await activeInviteIds(org)).not.toContain(inviteId);
    const again = await register(token, password);
    expect(again.status).toBe(201);
    expect(await accounts(person.email)).toEqual([{ id: again.body.userId, has_password: true }]);
    expect(await auditCount(inviteId, 'invite.accepted')).toBe(1);
  });

  it('a registration nobody finished is given back by the reconciler, and the token works again', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { inviteId, token } = await emailedInvite(org, person);
    await stack.db.query(`CREATE OR REPLACE FUNCTION test_refuse_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.invite_id = '${inviteId}' THEN RAISE EXCEPTION 'outcome refused by test'; END IF; RETURN NEW; END $$`);
    await stack.db.query(
      'CREATE TRIGGER test_refuse_outcome BEFORE INSERT ON invite_outcomes FOR EACH ROW EXECUTE FUNCTION test_refuse_outcome()',
    );
    try {
      expect((await register(token, canaryPassword())).status).toBeGreaterThanOrEqual(500);
    } finally {
      await stack.db.query('DROP TRIGGER test_refuse_outcome ON invite_outcomes');
      await stack.db.query('DROP FUNCTION test_refuse_outcome()');
    }
    const report = await invites.reconcile(stack.deps, { organizationId: org.organizationId, graceSeconds: -1 });
    expect(report).toMatchObject({ visited: 1, finished: 1, pending: 0 });
    expect(await activeInviteIds(org)).toContain(inviteId);
    expect(await auditCount(inviteId, 'invite.accepted')).toBe(0);
    const password = canaryPassword();
    const answer = await register(token, password);
    expect(answer.status).toBe(201);
    expect(await accounts(person.email)).toHaveLength(1);
  });

  it("is 410 for an expired invite, and for the admin's own token once a resend replaced it", async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { inviteId, token } = await emailedInvite(org, person);
    // Expiry is the object's TTL running out (lib/runtime/invites/create-invite.ts): let it run out now.
    await stack.redis.pexpire(stack.deps.keys.inviteObject(org.organizationId, inviteId), 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const expired = await register(token, canaryPassword());
    expect(expired.status).toBe(410);
    expect(errorCode(expired)).toBe('INVITE_INVALID');

    // An admin who saw a "none" token, then resent the invite (which emails a new one), holds a replaced token: 410.
    const other = newInvitee();
    const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: other.email, roleCode: 'Viewer' },
    });
    const shown = (await created.json()) as { invite: { inviteId: string }; token: string };
    expect(
      (await stack.request('POST', `/orgs/${org.organizationId}/invites/${shown.invite.inviteId}/resend`, { token: org.adminToken }))
        .status,
    ).toBe(200);
    expect((await register(shown.token, canaryPassword())).status).toBe(410);
    for (const someone of [person, other]) expect(await accounts(someone.email)).toEqual([]);
  });

  it("refuses a password outside sign-in's rules with 400 before anything is consumed", async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { inviteId, token } = await emailedInvite(org, person);
    for (const password of ['short-11chr', 'x'.repeat(257)]) {
      const answer = await register(token, password);
      expect(answer.status).toBe(400);
      expect(errorCode(answer)).toBe('VALIDATION_FAILED');
    }
    expect(await activeInviteIds(org)).toContain(inviteId);
    expect(await accounts(person.email)).toEqual([]);
    // Twelve characters is enough, as when a password is chosen anywhere else.
    expect((await register(token, 'twelve-chars')).status).toBe(201);
  });

  it('a repeat for a member removed from the organisation since is 410 and opens no session, as sign-in refuses one', async () => {
    const org = await stack.seedOrganization();
    const person = newInvitee();
    const { token } = await emailedInvite(org, person);
    const password = canaryPassword();
    const first = await register(token, password);
    expect(first.status).toBe(201);
    const userId = String(first.body.userId);
    const removed = await stack.request('DELETE', `/orgs/${org.organizationId}/members/${userId}`, { token: org.adminToken });
    expect(removed.status).toBe(204);
    const sessionsBefore = await sessionCount(userId);
    const again = await register(token, password);
    expect(again.status).toBe(410);
    expect(errorCode(again)).toBe('INVITE_INVALID');
    expect(again.body).not.toHaveProperty('accessToken');
    expect(await sessionCount(userId)).toBe(sessionsBefore);
    // Sign-in refuses the same account in the same organisation.
    const login = await signIn(org, person, password);
    expect(login.status).toBe(401);
  });
});

describe("under the organisation's sign-in policy", () => {
  it('requiring MFA: the account is created, no session opens (403 MFA_ENROLMENT_REQUIRED), and signing in answers the enrolment token', async () => {
    const org = await stack.seedOrganization();
    await stack.db.query('UPDATE organizations SET sign_in_require_mfa = true WHERE id = $1', [org.organizationId]);
    const person = newInvitee();
    const { token } = await emailedInvite(org, person);
    const password = canaryPassword();
    const answer = await register(token, password);
    expect([answer.status, errorCode(answer)]).toEqual([403, 'MFA_ENROLMENT_REQUIRED']);
    const [account] = await accounts(person.email);
    expect(account).toBeDefined();
    expect(await sessionCount(account!.id)).toBe(0);
    const login = await signIn(org, person, password);
    expect(((await login.json()) as { status: string }).status).toBe('mfa-enrolment-required');
  });

  it('not allowing passwords: the account is created, no session opens (403 SIGN_IN_METHOD_NOT_ALLOWED)', async () => {
    const org = await stack.seedOrganization();
    await stack.db.query("UPDATE organizations SET sign_in_methods = ARRAY['oidc'] WHERE id = $1", [org.organizationId]);
    const person = newInvitee();
    const { token } = await emailedInvite(org, person);
    const answer = await register(token, canaryPassword());
    expect([answer.status, errorCode(answer)]).toEqual([403, 'SIGN_IN_METHOD_NOT_ALLOWED']);
    const [account] = await accounts(person.email);
    expect(await sessionCount(account!.id)).toBe(0);
  });
});

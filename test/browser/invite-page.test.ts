// The invite page in headless Chromium, opened from the link an emailed invitation left in the mailbox folder: the
// token leaves the address bar at once and never reaches storage, a request or the DOM; someone who already has an
// account signs in (the MFA code too, when enrolled) and accepts; refusals are shown as the API words them; the CSP
// allows the one script it serves and nothing is refused; a newcomer chooses a password and joins (POST
// /invites/register), or is sent to sign in when the email has an account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { uuidv7 } from 'uuidv7';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { ERROR_CATALOG } from '../../lib/http/error-catalog.ts';
import type { SeededOrganization } from '../../local/stack/fixtures.ts';
import { setPassword } from '../support/fixtures.ts';
import { launchChromium, type Browser } from './support/chromium.ts';
import { startConsoleServer, type ConsoleServer } from './support/console-server.ts';

let server: ConsoleServer;
let browser: Browser;
let page: Page;
/** What the browser refused (a CSP violation shows up here) and every request the page sent, with its Referer. */
const refusals: string[] = [];
const requests: Array<{ url: string; referer: string | undefined; body: string | null }> = [];
/** Every secret the page handled: none may be found where a script, a log or a request URL could read it. */
const secrets: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
  page = await browser.context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) refusals.push(message.text());
  });
  page.on('request', (request) => {
    requests.push({ url: request.url(), referer: request.headers()['referer'], body: request.postData() });
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Person {
  org: SeededOrganization;
  email: string;
  password: string;
  slug: string;
}

/** An account in an organisation of its own, with a password: someone an admin elsewhere invites. */
async function accountHolder(): Promise<Person> {
  const org = await server.stack.seedOrganization();
  const password = `canary-invitee-pw-${uuidv7()}`;
  await setPassword(server.stack.db, org.adminId, password);
  secrets.push(password);
  return { org, email: org.adminEmail, password, slug: `o-${org.organizationId.replaceAll('-', '')}` };
}

/** The link that the server's admin's emailed invitation put in the mailbox folder (the answer said "sent"). */
async function emailedInvite(email: string, roleCode = 'Accountant'): Promise<{ link: string; inviteId: string }> {
  // Through the served app, whose notifier is the mailbox folder.
  const created = await fetch(`${server.baseUrl}/orgs/${server.admin.organizationId}/invites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.org.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, roleCode, delivery: 'email' }),
  });
  expect(created.status).toBe(201);
  const answer = (await created.json()) as { invite: { inviteId: string }; delivery: string };
  expect(answer.delivery).toBe('sent');
  const message = (await server.mailbox()).filter((m) => m.to === email).at(-1)!;
  const link = /(http:\/\/\S+#token=(\S+))/.exec(message.text)!;
  expect(link[1]!.startsWith(`${server.inviteLinkBase}#token=`)).toBe(true);
  secrets.push(link[2]!);
  return { link: link[1]!, inviteId: answer.invite.inviteId };
}

const emailedLink = async (email: string, roleCode?: string) => (await emailedInvite(email, roleCode)).link;

/** What a script in the page, or anyone with the profile, could read: storage, script-visible cookies, the DOM, the URL and history. */
async function readableByScripts(): Promise<string> {
  const inPage = await page.evaluate(() =>
    JSON.stringify({
      href: location.href,
      history: history.state as unknown,
      local: Object.entries(localStorage),
      session: Object.entries(sessionStorage),
      cookie: document.cookie,
      html: document.documentElement.outerHTML,
    }),
  );
  return inPage + JSON.stringify(await browser.context.cookies());
}

/** Opens the link as a mail client would: a fresh load, not a fragment change of the page already open. */
async function open(link: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(link);
  await page.getByRole('heading', { name: 'Join an organisation' }).waitFor();
}

async function signInAndAccept(person: Person, organization = person.slug): Promise<void> {
  await page.getByRole('button', { name: 'I already have an account' }).click();
  const form = page.locator('#sign-in');
  await form.getByLabel('Organisation you belong to (slug or id)').fill(organization);
  await form.getByLabel('Email').fill(person.email);
  await form.getByLabel('Password').fill(person.password);
  await form.getByRole('button', { name: 'Sign in and accept' }).click();
}

const roleOf = async (userId: string) =>
  (
    await server.stack.db.query('SELECT role_code FROM role_assignments WHERE user_id = $1 AND organization_id = $2', [
      userId,
      server.admin.organizationId,
    ])
  ).rows.map((row: { role_code: string }) => row.role_code);

const openSessions = async (userId: string) =>
  (await server.stack.db.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1 AND revoked_at IS NULL', [userId])).rows[0]
    .n as number;

describe('opened from the mailbox', () => {
  it('serves the page with a CSP whose hash is its script, and takes the fragment out of the address bar at once', async () => {
    const person = await accountHolder();
    const link = await emailedLink(person.email);
    const response = await page.goto(link);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    const script = /<script>([\s\S]*)<\/script>/.exec(await response!.text())![1]!;
    const digest = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script)))));
    expect(csp).toContain(`script-src 'sha256-${digest}'`);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    expect(response?.headers()['cache-control']).toBe('no-store');
    await page.getByRole('heading', { name: 'Join an organisation' }).waitFor();
    expect(page.url()).toBe(server.inviteLinkBase);
    expect(await page.evaluate(() => location.hash)).toBe('');
    // The server saw the page's path only: a fragment is never sent.
    expect(requests.find((r) => r.url.startsWith(server.inviteLinkBase))?.url).toBe(server.inviteLinkBase);
    expect(await readableByScripts()).not.toContain(secrets.at(-1));
    expect(await page.getByRole('button', { name: 'Choose a password and join' }).isVisible()).toBe(true);
  });

  it('says so when the link holds no token, and offers no form', async () => {
    await page.goto(server.inviteLinkBase);
    await page.getByRole('alert').getByText('This link holds no invitation').waitFor();
    expect(await page.locator('#register').isVisible()).toBe(false);
    expect(await page.locator('#sign-in').isVisible()).toBe(false);
  });

  it('reads a link opened in the tab already showing the page (only the fragment changes) afresh', async () => {
    const link = await emailedLink((await accountHolder()).email);
    expect(page.url()).toBe(server.inviteLinkBase);
    await Promise.all([page.waitForEvent('load'), page.evaluate((target) => void (location.href = target), link)]);
    await page.getByRole('button', { name: 'Choose a password and join' }).waitFor();
    expect(await page.evaluate(() => location.hash)).toBe('');
    expect(await page.getByRole('alert').textContent()).toBe('');
  });
});

describe('someone with an account', () => {
  let person: Person;
  let link: string;

  it('signs in (organisation by slug) and accepts: joined with the role, the fields cleared, the session it opened ended', async () => {
    person = await accountHolder();
    link = await emailedLink(person.email, 'Accountant');
    await open(link);
    await signInAndAccept(person);
    await page.getByRole('status').getByText('You have joined the organisation as Accountant.').waitFor();
    expect(await roleOf(person.org.adminId)).toEqual(['Accountant']);
    // The session opened only to accept is over, and the forms hold nothing typed.
    expect(await openSessions(person.org.adminId)).toBe(0);
    for (const name of ['organization', 'email', 'password']) expect(await page.locator(`#sign-in [name="${name}"]`).inputValue()).toBe('');
    expect(await page.locator('#sign-in').isVisible()).toBe(false);
    const readable = await readableByScripts();
    for (const secret of secrets) expect(readable).not.toContain(secret);
    // The token went in a JSON body to /invites/accept, never in a URL or a Referer.
    const accepted = requests.filter((r) => r.url === `${server.baseUrl}/invites/accept` && r.body !== null);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.body).toContain(secrets.at(-1));
  });

  it('opened again by the same account after a lost answer, says joined again: the accept is answered from its receipt', async () => {
    await open(link);
    await signInAndAccept(person, person.org.organizationId);
    await page.getByRole('status').getByText('You have joined the organisation as Accountant.').waitFor();
    expect(await roleOf(person.org.adminId)).toEqual(['Accountant']);
    expect(await openSessions(person.org.adminId)).toBe(0);
  });

  it('shows the refusal of a cancelled invitation as the API words it', async () => {
    const other = await accountHolder();
    const { link: cancelledLink, inviteId } = await emailedInvite(other.email);
    const cancelled = await server.stack.request('DELETE', `/orgs/${server.admin.organizationId}/invites/${inviteId}`, {
      token: server.org.adminToken,
    });
    expect(cancelled.status).toBe(204);
    await open(cancelledLink);
    await signInAndAccept(other);
    await page.getByRole('alert').getByText(ERROR_CATALOG.INVITE_INVALID.message).waitFor();
    expect(await roleOf(other.org.adminId)).toEqual([]);
    expect(await openSessions(other.org.adminId)).toBe(0);
  });

  it('shows a wrong password as the API words it, with the fields cleared, and the link still works afterwards', async () => {
    const other = await accountHolder();
    const otherLink = await emailedLink(other.email, 'Viewer');
    await open(otherLink);
    await signInAndAccept({ ...other, password: 'not-the-password' });
    await page.getByRole('alert').getByText(ERROR_CATALOG.INVALID_CREDENTIALS.message).waitFor();
    expect(await page.locator('#sign-in [name="password"]').inputValue()).toBe('');
    // Still on the page, with the token in memory: the right password accepts.
    const form = page.locator('#sign-in');
    await form.getByLabel('Organisation you belong to (slug or id)').fill(other.slug);
    await form.getByLabel('Email').fill(other.email);
    await form.getByLabel('Password').fill(other.password);
    await form.getByRole('button', { name: 'Sign in and accept' }).click();
    await page.getByRole('status').getByText('You have joined the organisation as Viewer.').waitFor();
    expect(await roleOf(other.org.adminId)).toEqual(['Viewer']);
  });

  it('refuses an account whose email is not the invitation’s, and the invitation stays for its invitee', async () => {
    const invitee = await accountHolder();
    const stranger = await accountHolder();
    const inviteeLink = await emailedLink(invitee.email, 'Viewer');
    await open(inviteeLink);
    await signInAndAccept(stranger);
    await page.getByRole('alert').getByText('this invitation is addressed to another email').waitFor();
    // Another try starts at the password again: the session that was refused is over.
    expect(await page.locator('#sign-in').isVisible()).toBe(true);
    expect(await roleOf(stranger.org.adminId)).toEqual([]);
    expect(await openSessions(stranger.org.adminId)).toBe(0);
    await open(inviteeLink);
    await signInAndAccept(invitee);
    await page.getByRole('status').getByText('You have joined the organisation as Viewer.').waitFor();
  });

  it('with MFA enrolled: the code step after the password, then the accept', async () => {
    const mfaPerson = await accountHolder();
    const bearer = await server.stack.token({ userId: mfaPerson.org.adminId, email: mfaPerson.email });
    // Enrolment takes the password too (docs/design/mfa.md#step-up); the confirmation answers the recovery codes.
    const enrolled = await server.stack.request('POST', '/auth/mfa/enrol', { token: bearer, body: { password: mfaPerson.password } });
    const { secret } = (await enrolled.json()) as { secret: string };
    secrets.push(secret);
    const code = (offset: number) => totpCode(base32Decode(secret), totpStep(Date.now()) + offset);
    const confirmed = await server.stack.request('POST', '/auth/mfa/enrol/confirm', { token: bearer, body: { code: await code(0) } });
    expect(confirmed.status).toBe(200);
    secrets.push(...((await confirmed.json()) as { recoveryCodes: string[] }).recoveryCodes);
    const mfaLink = await emailedLink(mfaPerson.email, 'Accountant');
    await open(mfaLink);
    await signInAndAccept(mfaPerson);
    const mfa = page.locator('#mfa');
    await mfa.getByLabel('Code from your authenticator app').waitFor();
    expect(await roleOf(mfaPerson.org.adminId)).toEqual([]);
    // The confirmation spent this step's code; the next step's is within the accepted drift.
    await mfa.getByLabel('Code from your authenticator app').fill(await code(1));
    await mfa.getByRole('button', { name: 'Verify and accept' }).click();
    await page.getByRole('status').getByText('You have joined the organisation as Accountant.').waitFor();
    expect(await roleOf(mfaPerson.org.adminId)).toEqual(['Accountant']);
    expect(await mfa.getByLabel('Code from your authenticator app').inputValue()).toBe('');
    expect(await openSessions(mfaPerson.org.adminId)).toBe(0);
  });
});

describe('a newcomer', () => {
  /** Chooses a password on the page open at an emailed link. */
  async function chooseAndJoin(password: string): Promise<void> {
    const form = page.locator('#register');
    await form.getByLabel('Choose a password (12 to 256 characters)').fill(password);
    await form.getByRole('button', { name: 'Choose a password and join' }).click();
  }

  it('chooses a password and joins: the account made with the role, the field cleared, the session it opened ended', async () => {
    const email = `newcomer-${uuidv7()}@example.test`;
    const password = `canary-newcomer-pw-${uuidv7()}`;
    secrets.push(password);
    const { link } = await emailedInvite(email, 'Viewer');
    await open(link);
    await chooseAndJoin(password);
    await page
      .getByRole('status')
      .getByText('You have joined the organisation. Sign in with this email and the password you chose.')
      .waitFor();
    const users = await server.stack.db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]);
    expect(users.rows).toHaveLength(1);
    const userId = users.rows[0]!.id;
    expect(await roleOf(userId)).toEqual(['Viewer']);
    expect(await openSessions(userId)).toBe(0);
    expect(await page.locator('#register [name="password"]').inputValue()).toBe('');
    // The token and the password went in one JSON body to /invites/register, never in a URL.
    const registered = requests.filter((r) => r.url === `${server.baseUrl}/invites/register` && r.body !== null);
    expect(registered.at(-1)!.body).toContain(secrets.at(-1));
    expect(registered.at(-1)!.body).toContain(password);
  });

  it('with an account already: told so (409 ACCOUNT_EXISTS), switched to sign in, and accepts there', async () => {
    const person = await accountHolder();
    const { link } = await emailedInvite(person.email, 'Viewer');
    await open(link);
    const unused = `canary-unused-pw-${uuidv7()}`;
    secrets.push(unused);
    await chooseAndJoin(unused);
    await page.getByRole('status').getByText(ERROR_CATALOG.ACCOUNT_EXISTS.message).waitFor();
    expect(await page.locator('#sign-in').isVisible()).toBe(true);
    expect(await page.locator('#register').isVisible()).toBe(false);
    const form = page.locator('#sign-in');
    await form.getByLabel('Organisation you belong to (slug or id)').fill(person.slug);
    await form.getByLabel('Email').fill(person.email);
    await form.getByLabel('Password').fill(person.password);
    await form.getByRole('button', { name: 'Sign in and accept' }).click();
    await page.getByRole('status').getByText('You have joined the organisation as Viewer.').waitFor();
    expect(await roleOf(person.org.adminId)).toEqual(['Viewer']);
  });
});

it('broke no CSP, sent no Referer, and no token or password reached a request URL, storage, a readable cookie or a log', async () => {
  expect(refusals).toEqual([]);
  const ours = requests.filter((r) => r.url.startsWith(server.baseUrl));
  expect(ours.length).toBeGreaterThan(10);
  for (const request of ours) expect(request.referer ?? '', request.url).toBe('');
  const urls = ours.map((r) => r.url).join('\n');
  const readable = await readableByScripts();
  const logs = server.logs.join('\n');
  for (const secret of secrets) {
    expect(urls).not.toContain(secret);
    expect(readable).not.toContain(secret);
    expect(logs).not.toContain(secret);
  }
});

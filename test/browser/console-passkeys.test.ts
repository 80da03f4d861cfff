// The console's Passkeys panel, passkey sign-in and Sign-in policy panel in headless Chromium, with Chromium's virtual
// authenticator (the DevTools WebAuthn domain) standing in for a platform one: a passkey registered through the browser
// (held by the authenticator, its public key in PostgreSQL), a wrong password refused, the passkey renamed; the policy
// made passkeys-only and held; a password sign-in then refused and a passkey one opening the console's cookie session;
// the passkey removed, after which it signs in nowhere; a policy that would lock the admins out refused in words; and a
// member who is no admin shown the refusal instead of the policy.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import { setPassword } from '../support/fixtures.ts';
import { memberFixtures } from '../support/members.ts';
import { launchChromium, type Browser } from './support/chromium.ts';
import { startConsoleServer, type ConsoleServer } from './support/console-server.ts';
import { inWords } from './support/panel-checks.ts';
import { signIn, waitForViews } from './support/sign-in.ts';

let server: ConsoleServer;
let browser: Browser;
let page: Page;
let cdp: CDPSession;
let authenticatorId: string;
const refusals: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
  page = await browser.context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) refusals.push(message.text());
  });
  cdp = await browser.context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  // A platform authenticator with a PIN or biometric already given: the API asks for a discoverable credential and
  // user verification at both ceremonies.
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      ctap2Version: 'ctap2_1',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }));
  await signIn(page, server, server.passkeyBaseUrl);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const passkeyForm = () => page.locator('#passkey-form');
const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
const storedPasskeys = async () =>
  (
    await server.stack.db.query<{ id: string; name: string; credential_id: string; last_used_at: Date | null }>(
      'SELECT id, name, credential_id, last_used_at FROM passkeys WHERE user_id = $1 ORDER BY created_at',
      [server.admin.userId],
    )
  ).rows;
const storedPolicy = async () =>
  (
    await server.stack.db.query<{ sign_in_require_mfa: boolean; sign_in_methods: string[] }>(
      'SELECT sign_in_require_mfa, sign_in_methods FROM organizations WHERE id = $1',
      [server.admin.organizationId],
    )
  ).rows[0];
const liveSessions = async () =>
  (
    await server.stack.db.query<{ method: string }>(
      'SELECT method FROM sessions WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC',
      [server.admin.userId],
    )
  ).rows;

async function signOut(): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.locator('#password-form').waitFor();
}

async function passkeySignIn(): Promise<void> {
  await page.locator('#password-form').getByLabel('Organisation (slug or id)').fill(server.admin.slug);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
}

it('registers a passkey through the browser: the authenticator holds it, the panel lists it, PostgreSQL its public key', async () => {
  await passkeyForm().getByLabel('Name').fill('Laptop');
  await passkeyForm().getByLabel('Your password').fill(server.admin.password);
  await passkeyForm().getByRole('button', { name: 'Register a passkey' }).click();
  await page.getByLabel('Name of the passkey Laptop', { exact: true }).waitFor();
  await expect.poll(() => page.locator('#notice').textContent()).toBe('Registered the passkey Laptop.');

  const [credential, ...others] = await credentials();
  expect(others).toEqual([]);
  expect(credential!).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
  const [stored, ...more] = await storedPasskeys();
  expect(more).toEqual([]);
  expect(stored!.name).toBe('Laptop');
  // CDP gives the credential id in base64; the API keeps it base64url.
  expect(stored!.credential_id).toBe(Buffer.from(credential!.credentialId, 'base64').toString('base64url'));
  // The step-up's password does not stay in the page.
  expect(await passkeyForm().getByLabel('Your password').inputValue()).toBe('');
  const row = page.locator('#passkey-rows tr');
  await expect.poll(() => row.locator('td').nth(2).textContent()).toBe('never');
  expect(await row.locator('td').nth(3).textContent()).toBe('internal');
});

it('registers nothing when the step-up fails: REAUTH_FAILED beside the panel', async () => {
  await passkeyForm().getByLabel('Your password').fill('not-the-password');
  await passkeyForm().getByRole('button', { name: 'Register a passkey' }).click();
  await expect.poll(() => page.locator('#passkeys-error').textContent()).toMatch(inWords('REAUTH_FAILED'));
  expect(await credentials()).toHaveLength(1);
  expect(await storedPasskeys()).toHaveLength(1);
});

it('renames the passkey with its row', async () => {
  await page.getByLabel('Name of the passkey Laptop', { exact: true }).fill('Work laptop');
  await page.getByRole('button', { name: 'Save the name of the passkey Laptop' }).click();
  await page.getByLabel('Name of the passkey Work laptop', { exact: true }).waitFor();
  await expect.poll(() => page.locator('#notice').textContent()).toBe('Renamed the passkey Laptop to Work laptop.');
  expect((await storedPasskeys()).map((p) => p.name)).toEqual(['Work laptop']);
});

it("shows the organisation's policy to its admin, and makes it passkeys-only (held in PostgreSQL)", async () => {
  const form = page.locator('#policy-form');
  await form.waitFor();
  expect(await form.getByLabel('Password', { exact: true }).isChecked()).toBe(true);
  expect(await form.getByLabel('Single sign-on (OpenID Connect)').isChecked()).toBe(true);
  expect(await form.getByLabel('Passkey', { exact: true }).isChecked()).toBe(true);
  expect(await form.getByLabel(/Require a second factor/).isChecked()).toBe(false);
  await form.getByLabel('Password', { exact: true }).uncheck();
  await form.getByLabel('Single sign-on (OpenID Connect)').uncheck();
  await form.getByRole('button', { name: 'Save policy' }).click();
  await expect.poll(() => page.locator('#notice').textContent()).toBe('Sign-in policy saved: passkey, no second factor required.');
  expect(await storedPolicy()).toEqual({ sign_in_require_mfa: false, sign_in_methods: ['passkey'] });
});

it("refuses the password under that policy, and signs in with the passkey alone into the console's cookie session", async () => {
  await signOut();
  const form = page.locator('#password-form');
  await form.getByLabel('Organisation (slug or id)').fill(server.admin.slug);
  await form.getByLabel('Email').fill(server.admin.email);
  await form.getByLabel('Password', { exact: true }).fill(server.admin.password);
  await form.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect.poll(() => page.locator('#sign-in-error').textContent()).toMatch(inWords('SIGN_IN_METHOD_NOT_ALLOWED'));
  expect(await liveSessions()).toEqual([]);

  await passkeySignIn();
  await waitForViews(page);
  expect(await liveSessions()).toEqual([{ method: 'passkey' }]);
  // The session is in cookies the script cannot read, as after a password sign-in.
  const cookies = await browser.context.cookies(server.passkeyBaseUrl + '/console');
  expect(cookies.find((c) => c.name === 'rs_console_access')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  expect(await page.evaluate(() => document.cookie)).toBe('');
  // The sign-in was the passkey's use.
  expect((await storedPasskeys())[0]!.last_used_at).not.toBeNull();
  await expect.poll(() => page.locator('#passkey-rows tr td').nth(2).textContent()).not.toBe('never');
  expect(await page.locator('#session-rows tr.current td').nth(3).textContent()).toBe('passkey');
});

it('refuses a policy that would lock the admins out, in words, and changes nothing', async () => {
  const form = page.locator('#policy-form');
  // Every method back first: the passkey is about to go.
  await form.getByLabel('Password', { exact: true }).check();
  await form.getByLabel('Single sign-on (OpenID Connect)').check();
  await form.getByRole('button', { name: 'Save policy' }).click();
  await expect.poll(() => storedPolicy()).toEqual({ sign_in_require_mfa: false, sign_in_methods: ['oidc', 'passkey', 'password'] });

  // No OpenID provider is listed, so single sign-on alone admits no admin.
  await form.getByLabel('Password', { exact: true }).uncheck();
  await form.getByLabel('Passkey', { exact: true }).uncheck();
  await form.getByRole('button', { name: 'Save policy' }).click();
  await expect
    .poll(() => page.locator('#policy-error').textContent())
    .toMatch(/^No organisation-wide [^]*nothing was changed\. code: SIGN_IN_POLICY_LOCKOUT$/);
  expect(await storedPolicy()).toEqual({ sign_in_require_mfa: false, sign_in_methods: ['oidc', 'passkey', 'password'] });

  // No method at all is the API's validation refusal, shown the same way.
  await form.getByLabel('Single sign-on (OpenID Connect)').uncheck();
  await form.getByRole('button', { name: 'Save policy' }).click();
  await expect.poll(() => page.locator('#policy-error').textContent()).toMatch(inWords('VALIDATION_FAILED'));
});

it('removes the passkey with the password; the authenticator still holds it, but it signs in nowhere', async () => {
  await passkeyForm().getByLabel('Your password').fill(server.admin.password);
  await page.getByRole('button', { name: 'Remove the passkey Work laptop' }).click();
  await expect.poll(() => page.locator('#notice').textContent()).toBe('Removed the passkey Work laptop: it signs in nowhere from now on.');
  expect(await page.locator('#passkey-rows tr').count()).toBe(0);
  expect(await storedPasskeys()).toEqual([]);
  expect(await credentials()).toHaveLength(1);

  await signOut();
  await passkeySignIn();
  await expect.poll(() => page.locator('#sign-in-error').textContent()).toMatch(inWords('PASSKEY_NOT_ACCEPTED'));
  expect(await liveSessions()).toEqual([]);
});

it('shows a member who is not an admin the refusal instead of the policy', async () => {
  const viewer = await memberFixtures(server.stack).addMember(server.admin.organizationId, 'Viewer');
  const password = `viewer-password-${crypto.randomUUID()}`;
  await setPassword(server.stack.db, viewer.userId, password);
  const form = page.locator('#password-form');
  await form.getByLabel('Organisation (slug or id)').fill(server.admin.slug);
  await form.getByLabel('Email').fill(viewer.email);
  await form.getByLabel('Password', { exact: true }).fill(password);
  await form.getByRole('button', { name: 'Sign in', exact: true }).click();
  await waitForViews(page);
  expect(await page.locator('#policy-error').textContent()).toMatch(inWords('FORBIDDEN'));
  expect(await page.locator('#policy-form').isHidden()).toBe(true);
  expect(refusals).toEqual([]);
  expect(server.logs.join('\n')).not.toContain(server.admin.password);
});

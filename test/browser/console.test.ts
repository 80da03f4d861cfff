// The console in headless Chromium against the app served over HTTP: sign in, create an invite (its token shown once,
// then gone from the page), see it listed with a live countdown, cancel it, send one by email (the default) and resend
// it, start an export and download it; no token
// or password in localStorage, sessionStorage or a cookie a script can read; the CSP on every answer and never broken.
// The history and Syrve runtime views are in console-history-runtime.test.ts (they need those API routes).
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { systemClock } from '../../lib/deps.ts';
import { CONSOLE_CSP } from '../../lib/console/security-headers.ts';
import { auditExportTask } from '../../lib/runtime/jobs/index.ts';
import { launchChromium, type Browser } from './support/chromium.ts';
import { startConsoleServer, type ConsoleServer } from './support/console-server.ts';
import { signIn, waitForViews } from './support/sign-in.ts';

let server: ConsoleServer;
let browser: Browser;
let page: Page;
/** Every answer of the served app the page saw, and what the browser refused (a CSP violation shows up here). */
const answers: Array<{ url: string; csp: string | undefined }> = [];
const refusals: string[] = [];
/** The invite token the dialog showed once: the canary searched for everywhere afterwards. */
let inviteToken = '';
/** The tokens of the emailed invites, read from the mailbox folder: never in the page either. */
const emailedTokens: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
  page = await browser.context.newPage();
  page.on('response', (response) => {
    if (response.url().startsWith(server.baseUrl))
      answers.push({ url: response.url(), csp: response.headers()['content-security-policy'] });
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) refusals.push(message.text());
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** What a script in the page, or anyone with the profile, could read: storage, script-visible cookies, the DOM. */
async function readableByScripts(): Promise<string> {
  const inPage = await page.evaluate(() =>
    JSON.stringify({
      local: Object.entries(localStorage),
      session: Object.entries(sessionStorage),
      cookie: document.cookie,
      html: document.documentElement.outerHTML,
    }),
  );
  const cookies = await browser.context.cookies();
  return inPage + JSON.stringify(cookies.filter((cookie) => !cookie.httpOnly));
}

it('signs in with the password and shows the first view (its load time printed)', async () => {
  const started = Date.now();
  await signIn(page, server);
  const signInMs = Date.now() - started;
  // The first view of a signed-in admin: a fresh load of /console until every view has its data.
  const loadStarted = Date.now();
  const response = await page.goto(`${server.baseUrl}/console`);
  await waitForViews(page);
  const firstViewMs = Date.now() - loadStarted;
  console.log(`console first view: ${firstViewMs} ms (signed in, fresh load of /console); sign-in through the form: ${signInMs} ms`);
  expect(response?.headers()['content-security-policy']).toBe(CONSOLE_CSP);
  await page.getByRole('heading', { name: 'Active invites' }).waitFor();
  expect(await page.locator('#context-status').textContent()).toBe('as OrganizationAdmin');
  // The session is in HttpOnly, SameSite=Strict cookies scoped to /console; a script sees none of them.
  const cookies = await browser.context.cookies();
  expect(cookies.map((c) => c.name).sort()).toEqual(['rs_console_access', 'rs_console_csrf', 'rs_console_refresh']);
  for (const cookie of cookies) {
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookie.path.startsWith('/console')).toBe(true);
  }
  expect(await page.evaluate(() => document.cookie)).toBe('');
  const readable = await readableByScripts();
  expect(readable).not.toContain(server.admin.password);
  for (const cookie of cookies) expect(readable).not.toContain(cookie.value);
});

it('offers delivery by email first, and the token only when asked for', async () => {
  const delivery = page.locator('#invite-form').getByLabel('Delivery');
  expect(await delivery.inputValue()).toBe('email');
  expect(await delivery.locator('option').allTextContents()).toEqual(['Send by email', 'Show the token here, once']);
});

it('creates an invite by keyboard with delivery "none": the token is shown once in a dialog with a copy button, then gone from the page', async () => {
  const form = page.locator('#invite-form');
  await form.getByLabel('Email').fill('browser-invitee@example.test');
  await form.getByLabel('Role').selectOption('Accountant');
  await form.getByLabel('Delivery').selectOption('none');
  await form.getByRole('button', { name: 'Create invite' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Invitation token' });
  await dialog.waitFor();
  inviteToken = (await page.locator('#token-value').textContent()) ?? '';
  expect(inviteToken).toMatch(/^[A-Za-z0-9_-]{20,}/);
  expect(await dialog.textContent()).toContain('Shown this once');
  // Focus moved into the dialog, onto its copy button.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('token-copy');
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
  await page.keyboard.press('Enter');
  await page.locator('#token-copy-status', { hasText: /Copied|Selected/ }).waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  // Focus is back where it was, and the token is nowhere in the page, its storage or its script-readable cookies. The
  // dialog's `close` event, which clears it, is a task of its own after the dialog is hidden: poll for it.
  await expect.poll(() => page.locator('#token-value').textContent()).toBe('');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Create invite');
  expect(await readableByScripts()).not.toContain(inviteToken);
  // The form is back at its defaults, email delivery included.
  expect(await form.getByLabel('Delivery').inputValue()).toBe('email');
});

it('lists the invite with a live countdown to its expiry, and the token stays gone after a reload', async () => {
  const row = page.locator('#invite-rows tr', { hasText: 'browser-invitee@example.test' });
  await row.waitFor();
  expect(await row.textContent()).toContain('Accountant');
  const countdown = row.locator('time');
  const first = await countdown.textContent();
  expect(first).toMatch(/^[23]h \d+m \d+s$/);
  await page.waitForFunction((before) => document.querySelector('#invite-rows time')?.textContent !== before, first, { timeout: 5_000 });
  await page.reload();
  await waitForViews(page);
  expect(await readableByScripts()).not.toContain(inviteToken);
});

it('cancels the invite after a confirmation dialog', async () => {
  await page.getByRole('button', { name: 'Cancel the invite for browser-invitee@example.test' }).click();
  const confirm = page.getByRole('dialog', { name: 'Cancel this invite?' });
  await confirm.waitFor();
  // The safe answer has the focus.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('confirm-no');
  await confirm.getByRole('button', { name: 'Cancel invite' }).click();
  await page.locator('#notice', { hasText: 'Cancelled the invite for browser-invitee@example.test.' }).waitFor();
  await page.locator('#invite-rows', { hasText: 'No active invites.' }).waitFor();
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('invites-refresh');
});

/** The invite row's expiry, as the list drew it. */
const expiryOf = async (email: string) =>
  Date.parse((await page.locator('#invite-rows tr', { hasText: email }).locator('time').getAttribute('datetime')) ?? '');

/** The tokens in the links mailed to `email`, oldest first. */
const mailedTokens = async (email: string) =>
  (await server.mailbox()).filter((m) => m.to === email).map((m) => /#token=(\S+)/.exec(m.text)![1]!);

it('sends an invite by email (the default): "sent" is announced once the list shows it, and no token reaches the page', async () => {
  const email = 'emailed-invitee@example.test';
  const form = page.locator('#invite-form');
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Role').selectOption('Viewer');
  await form.getByRole('button', { name: 'Create invite' }).click();
  await page.locator('#notice', { hasText: `Invite for ${email}: email sent.` }).waitFor();
  // Announced after the redraw: the row is already there, and no dialog opened.
  expect(await page.locator('#invite-rows tr', { hasText: email }).count()).toBe(1);
  expect(await page.getByRole('dialog', { name: 'Invitation token' }).isVisible()).toBe(false);
  const [token] = await mailedTokens(email);
  expect(token).toMatch(/^rsi_/);
  emailedTokens.push(token!);
  expect(await readableByScripts()).not.toContain(token);
});

it("resends it: announced once the list is redrawn, focus back on the row's Resend, a new token mailed and the expiry restarted", async () => {
  const email = 'emailed-invitee@example.test';
  const before = await expiryOf(email);
  // The expiry is counted from the resend: a moment later, so it must be later.
  await page.waitForTimeout(1_100);
  await page.getByRole('button', { name: `Resend the invite for ${email}` }).click();
  await page.locator('#notice', { hasText: `Resent the invite for ${email}: email sent.` }).waitFor();
  expect(await expiryOf(email)).toBeGreaterThan(before);
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Resend the invite for ${email}`);
  const tokens = await mailedTokens(email);
  expect(tokens).toHaveLength(2);
  expect(tokens[1]).not.toBe(tokens[0]);
  emailedTokens.push(tokens[1]!);
  await page.locator('#history-rows', { hasText: 'invite.resent' }).waitFor();
});

it('says "failed — use Resend" when the email cannot be sent, and the invite stands', async () => {
  const email = 'unlucky-invitee@example.test';
  server.failSends(true);
  try {
    const form = page.locator('#invite-form');
    await form.getByLabel('Email').fill(email);
    await form.getByRole('button', { name: 'Create invite' }).click();
    await page.locator('#notice', { hasText: `Invite for ${email}: email failed — use Resend.` }).waitFor();
    await page.locator('#invite-rows tr', { hasText: email }).waitFor();
    await page.getByRole('button', { name: `Resend the invite for ${email}` }).click();
    await page.locator('#notice', { hasText: `Resent the invite for ${email}: email failed — use Resend.` }).waitFor();
  } finally {
    server.failSends(false);
  }
  await page.getByRole('button', { name: `Resend the invite for ${email}` }).click();
  await page.locator('#notice', { hasText: `Resent the invite for ${email}: email sent.` }).waitFor();
  emailedTokens.push(...(await mailedTokens(email)));
  expect(emailedTokens).toHaveLength(3);
});

it('starts an audit export, says when it will start, still lists it after a reload, and downloads the CSV with both invite events', async () => {
  await page.getByRole('button', { name: 'Start an export' }).click();
  const started = page.locator('#export-list li').first();
  // Queued until the scheduled function's next run, which is due on the whole 5 minutes (CRON_INTERVAL_SECONDS).
  const queued = started.getByText(/queued — starts at the next scheduled run, about \d{1,2}:\d{2}/);
  await queued.waitFor();
  const minutes = Number(/:(\d{2})/.exec((await queued.textContent()) ?? '')?.[1]);
  expect(minutes % 5).toBe(0);
  const jobId = await started.getAttribute('data-job-id');
  expect(jobId).toMatch(/^[0-9a-f-]{36}$/);

  // A reload (or another tab) lists it from the API, with who started it.
  await page.reload();
  await waitForViews(page);
  const item = page.locator(`#export-list li[data-job-id="${jobId}"]`);
  await item.getByText(/queued — starts at the next scheduled run/).waitFor();
  await item.getByText(`by ${server.admin.email}`).waitFor();
  // The scheduled function writes the file (npm start runs it on a timer; here once, now).
  const report = await auditExportTask.run(server.stack.deps, createBudget({ commands: 10_000, timeMs: 30_000 }, systemClock), {
    correlationId: 'browser-export',
  });
  expect(report).toMatchObject({ done: true });
  await item.getByText(/done 100%/).waitFor({ timeout: 10_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), item.getByRole('button', { name: /^Download export/ }).click()]);
  expect(download.suggestedFilename()).toMatch(/^audit-export-[0-9a-f-]{36}\.csv$/);
  const csv = await readFile((await download.path())!, 'utf8');
  expect(csv).toContain('invite.created');
  expect(csv).toContain('invite.cancelled');
  expect(csv).toContain('invite.resent');
  for (const token of [inviteToken, ...emailedTokens]) expect(csv).not.toContain(token);
});

it('kept the CSP on every answer, broke none of it, and no token or password reached a log, storage or readable cookie', async () => {
  expect(answers.length).toBeGreaterThan(10);
  for (const answer of answers) expect(answer.csp, answer.url).toBe(CONSOLE_CSP);
  expect(refusals).toEqual([]);
  const readable = await readableByScripts();
  const secrets = [
    inviteToken,
    ...emailedTokens,
    server.admin.password,
    ...(await browser.context.cookies()).map((cookie) => cookie.value),
  ];
  for (const secret of secrets) expect(readable).not.toContain(secret);
  const logs = server.logs.join('\n');
  for (const secret of secrets) expect(logs).not.toContain(secret);
});

it('says a sign-out that did not complete, and keeps the session and the button for a retry (next test)', async () => {
  // The store behind the denylist refuses: the API logout's own token check answers 503, so the session stays live.
  server.stack.revocationProxy.faults.set({ refuse: true });
  try {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page
      .getByRole('status')
      .getByText(/Sign-out did not complete: you are still signed in\. Try again\..*REVOCATION_UNAVAILABLE/)
      .waitFor();
  } finally {
    server.stack.revocationProxy.faults.clear();
  }
  expect(await page.getByRole('button', { name: 'Sign out' }).isEnabled()).toBe(true);
  expect(await page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(false);
  const names = (await browser.context.cookies()).map((cookie) => cookie.name);
  expect(names).toContain('rs_console_access');
  expect(names).toContain('rs_console_refresh');
});

it('signs out: the cookies are cleared and the page is back at the sign-in form', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const names = (await browser.context.cookies()).map((cookie) => cookie.name);
  expect(names).not.toContain('rs_console_access');
  expect(names).not.toContain('rs_console_refresh');
});

// The console's Members and Your sessions panels in headless Chromium: the member list, a role changed with its select
// and Save (checked in PostgreSQL), the last admin's demotion refused with LAST_ADMIN beside the row, a removal through
// the confirmation dialog; the caller's own sessions with the current one marked, another one ended (revoked in
// PostgreSQL), and a hostile User-Agent shown as text, never run.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CONSOLE_CSP } from '../../lib/console/security-headers.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { memberFixtures } from '../support/members.ts';
import { launchChromium, type Browser } from './support/chromium.ts';
import { startConsoleServer, type ConsoleServer } from './support/console-server.ts';
import { inWords, RELATIVE } from './support/panel-checks.ts';
import { signIn } from './support/sign-in.ts';

/** Would set a mark on <body> if the page ever parsed it as markup (the CSP would then refuse the handler too). */
const HOSTILE_AGENT = `<img src=x onerror="document.body.dataset.pwned='yes'">`;

let server: ConsoleServer;
let browser: Browser;
let page: Page;
let m: ReturnType<typeof memberFixtures>;
let accountant: { userId: string; email: string };
let outletViewer: { userId: string; email: string };
const answers: Array<{ url: string; csp: string | undefined }> = [];
const refusals: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
  m = memberFixtures(server.stack);
  accountant = await m.addMember(server.admin.organizationId, 'Accountant');
  outletViewer = await m.addMember(server.admin.organizationId, 'Viewer', server.admin.locationId);
  page = await browser.context.newPage();
  page.on('response', (response) => {
    if (response.url().startsWith(server.baseUrl))
      answers.push({ url: response.url(), csp: response.headers()['content-security-policy'] });
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) refusals.push(message.text());
  });
  await signIn(page, server);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

let ipCounter = 0;

/** Another session of the admin, opened by a password sign-in through the API with this User-Agent; its session id. */
async function apiSignIn(userAgent: string): Promise<string> {
  const response = await server.stack.request('POST', '/auth/login', {
    body: { organizationId: server.admin.organizationId, email: server.admin.email, password: server.admin.password },
    headers: { 'user-agent': userAgent, [TEST_CLIENT_IP_HEADER]: `127.4.0.${++ipCounter}` },
  });
  expect(response.status).toBe(200);
  return decodeJwt(((await response.json()) as { accessToken: string }).accessToken).sid as string;
}

/** The member rows as the page shows them: email, the role its select holds, outlet, joined. */
async function memberRows(): Promise<Array<[string, string, string, string]>> {
  return page.locator('#member-rows tr').evaluateAll((rows) =>
    rows.map((row) => {
      const [email, role, outlet, joined] = [...row.children] as HTMLElement[];
      return [email!.textContent ?? '', role!.querySelector('select')!.value, outlet!.textContent ?? '', joined!.textContent ?? ''] as [
        string,
        string,
        string,
        string,
      ];
    }),
  );
}

const focusedLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.id);

it('lists the members: one row per role held, with email, role, outlet and when it was granted', async () => {
  await page.getByRole('heading', { name: 'Members' }).waitFor();
  const rows = await memberRows();
  expect(rows.map(([email, role, outlet]) => [email, role, outlet])).toEqual([
    [server.admin.email, 'OrganizationAdmin', 'whole organisation'],
    [accountant.email, 'Accountant', 'whole organisation'],
    [outletViewer.email, 'Viewer', 'Main'],
  ]);
  for (const [, , , joined] of rows) expect(joined).toMatch(RELATIVE);
  expect(await page.locator('#members-error').textContent()).toBe('');
  expect(await page.getByRole('button', { name: 'Next page of members' }).isDisabled()).toBe(true);
});

it("changes a member's role with the select and Save: PostgreSQL holds it, and the list is drawn again", async () => {
  const who = `${accountant.email} (whole organisation)`;
  await page.getByLabel(`Role of ${who}`, { exact: true }).selectOption('Viewer');
  await page.getByRole('button', { name: `Save the role of ${who}` }).click();
  await page.locator('#notice', { hasText: `${accountant.email} is now Viewer (whole organisation).` }).waitFor();
  expect(await m.rolesOf(accountant.userId, server.admin.organizationId)).toEqual([{ role_code: 'Viewer', location_id: null }]);
  expect((await memberRows())[1]?.[1]).toBe('Viewer');
  // The row was drawn again; focus is on its Save button, as before.
  expect(await focusedLabel()).toBe(`Save the role of ${who}`);
});

it('refuses to demote the last admin: LAST_ADMIN next to the row, the role still shown and held', async () => {
  const who = `${server.admin.email} (whole organisation)`;
  const row = page.locator('#member-rows tr', { hasText: server.admin.email });
  await page.getByLabel(`Role of ${who}`, { exact: true }).selectOption('Accountant');
  await page.getByRole('button', { name: `Save the role of ${who}` }).click();
  await row.locator('output', { hasText: inWords('LAST_ADMIN') }).waitFor();
  expect(await page.getByLabel(`Role of ${who}`, { exact: true }).inputValue()).toBe('OrganizationAdmin');
  expect(await m.rolesOf(server.admin.userId, server.admin.organizationId)).toEqual([
    { role_code: 'OrganizationAdmin', location_id: null },
  ]);
});

it('removes a member after the confirmation dialog (Keep them first): the row and their roles in PostgreSQL are gone', async () => {
  const remove = page.getByRole('button', { name: `Remove ${outletViewer.email}` });
  const confirm = page.getByRole('dialog', { name: 'Remove this member?' });
  await remove.focus();
  await page.keyboard.press('Enter');
  await confirm.waitFor();
  expect(await confirm.textContent()).toContain(`${outletViewer.email} loses every role in this organisation`);
  // The safe answer has the focus; taking it changes nothing and focus is back on Remove.
  expect(await focusedLabel()).toBe('confirm-no');
  await page.keyboard.press('Enter');
  await confirm.waitFor({ state: 'hidden' });
  expect(await focusedLabel()).toBe(`Remove ${outletViewer.email}`);
  expect(await m.rolesOf(outletViewer.userId, server.admin.organizationId)).toHaveLength(1);
  await remove.click();
  await confirm.getByRole('button', { name: 'Remove member' }).click();
  await page.locator('#notice', { hasText: `Removed ${outletViewer.email} from the organisation.` }).waitFor();
  await page.locator('#member-rows tr', { hasText: outletViewer.email }).waitFor({ state: 'detached' });
  expect(await m.rolesOf(outletViewer.userId, server.admin.organizationId)).toEqual([]);
  expect((await memberRows()).map(([email]) => email)).toEqual([server.admin.email, accountant.email]);
  expect(await focusedLabel()).toBe('members-first');
});

let otherSessionId = '';

it('shows your sessions, newest first, with this one marked and no End button on it', async () => {
  otherSessionId = await apiSignIn('second-sign-in/1.0');
  await apiSignIn(HOSTILE_AGENT);
  await page.locator('#sessions-refresh').click();
  const rows = page.locator('#session-rows tr');
  await page.waitForFunction(() => document.querySelectorAll('#session-rows tr').length === 3);
  const current = page.locator('#session-rows tr[aria-current="true"]');
  expect(await current.count()).toBe(1);
  // This browser's session: the first opened, so the last row; ended by Sign out, not from here.
  expect(await rows.nth(2).getAttribute('aria-current')).toBe('true');
  expect(await current.textContent()).toContain('This session');
  // Named by ua-parser-js, with the device class below and the raw User-Agent on hover.
  const client = current.locator('td').nth(2);
  expect(await client.textContent()).toMatch(/^Chrome Headless \d+ on Linuxdesktop$/);
  expect(await client.getAttribute('title')).toContain('HeadlessChrome/');
  expect(await current.getByRole('button').count()).toBe(0);
  const other = page.locator('#session-rows tr', { hasText: 'second-sign-in/1.0' });
  expect(await other.textContent()).toContain('password');
  expect(await other.textContent()).toContain('Test org');
  expect(await other.getByRole('button', { name: /^End the session opened / }).count()).toBe(1);
  // Ids stay in the script: none is written into the page.
  expect(await page.content()).not.toContain(otherSessionId);
});

it('ends another session: revoked in PostgreSQL, and the list drawn again without it', async () => {
  const other = page.locator('#session-rows tr', { hasText: 'second-sign-in/1.0' });
  await other.getByRole('button', { name: /^End the session opened / }).click();
  await page.locator('#notice', { hasText: /^Ended the session opened / }).waitFor();
  await other.waitFor({ state: 'detached' });
  const revoked = await server.stack.db.query('SELECT revoked_at FROM sessions WHERE id = $1', [otherSessionId]);
  expect(revoked.rows[0]?.revoked_at).toBeInstanceOf(Date);
  expect(await page.locator('#session-rows tr').count()).toBe(2);
  expect(await focusedLabel()).toBe('sessions-refresh');
});

it('shows a hostile User-Agent as text: no element made of it, nothing run, the CSP never tested', async () => {
  const cellText = await page
    .locator('#session-rows td.agent')
    .evaluateAll((cells) => cells.map((cell) => cell.textContent).find((text) => text?.startsWith('<img')));
  expect(cellText).toBe(HOSTILE_AGENT);
  expect(await page.locator('#session-rows img').count()).toBe(0);
  expect(await page.evaluate(() => document.body.dataset.pwned)).toBeUndefined();
  for (const answer of answers) expect(answer.csp, answer.url).toBe(CONSOLE_CSP);
  expect(refusals).toEqual([]);
});

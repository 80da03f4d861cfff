// The console's API keys panel in headless Chromium: a key made with its key shown once in a dialog with a copy button,
// then gone from the page, its storage and the browser's console (only its keyed hash in PostgreSQL); rolled with the
// overlap chosen (the new key shown once, the old one listed until the overlap ends); a second roll of the old one
// refused as a sentence; the new one revoked; a key with no scope refused in words; the panel inside its card at
// 1 280 and 1 366 × 768; and a member who is no admin told so instead.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiKeyHash } from '../../lib/auth/api-keys/key-hash.ts';
import { launchChromium, type Browser } from './support/chromium.ts';
import { startConsoleServer, type ConsoleServer } from './support/console-server.ts';
import { inWords, panelOverflow, readableByScripts, RELATIVE, STAMP } from './support/panel-checks.ts';
import { signIn, signInAsNewViewer } from './support/sign-in.ts';

let server: ConsoleServer;
let browser: Browser;
let page: Page;
const consoleLines: string[] = [];
const refusals: string[] = [];
/** Every key a dialog showed: searched for everywhere afterwards. */
const shownKeys: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  page.on('console', (message) => {
    consoleLines.push(message.text());
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) refusals.push(message.text());
  });
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
  await signIn(page, server);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const form = () => page.locator('#api-key-form');
const rows = () => page.locator('#api-key-rows tr');
const storedKeys = async () =>
  (
    await server.stack.db.query<{ id: string; name: string; prefix: string; key_hash: string; revoked: boolean; expires: boolean }>(
      `SELECT id, name, prefix, key_hash, revoked_at IS NOT NULL AS revoked, expires_at IS NOT NULL AS expires
         FROM api_keys WHERE organization_id = $1 ORDER BY created_at`,
      [server.admin.organizationId],
    )
  ).rows;

/** Reads the key the dialog shows, copies it with the button, closes the dialog, and checks it left the page. */
async function takeKeyOnce(title: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.waitFor();
  const key = (await page.locator('#token-value').textContent()) ?? '';
  expect(key).toMatch(/^rsk_[A-Za-z0-9]{38}$/);
  expect(await dialog.textContent()).toContain('Shown this once');
  await dialog.getByRole('button', { name: 'Copy key' }).click();
  await page.locator('#token-copy-status', { hasText: /Copied|Selected/ }).waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await expect.poll(() => page.locator('#token-value').textContent()).toBe('');
  expect(await readableByScripts(page, browser)).not.toContain(key);
  shownKeys.push(key);
  return key;
}

/** What the API answers a machine client calling with this key on a route its members:read scope reaches. */
const membersWith = async (key: string) =>
  (await server.stack.request('GET', `/orgs/${server.admin.organizationId}/members`, { token: key })).status;

/** The keyed hash PostgreSQL holds for a key. */
const hashOf = (key: string) => apiKeyHash(server.stack.config.indexHashKey, key);

it('creates a key: shown once with a copy button, then nowhere in the page; PostgreSQL holds only its hash', async () => {
  await form().getByLabel('Name').fill('Stock sync');
  await form().getByLabel('members:read').check();
  await form().getByLabel('invites:read').check();
  await form().getByLabel('Requests per minute (optional)').fill('120');
  const nextYear = new Date().getUTCFullYear() + 1;
  await form().getByLabel('Expires on (optional, UTC)').fill(`${nextYear}-03-01`);
  await form().getByRole('button', { name: 'Create API key' }).click();
  const key = await takeKeyOnce('New API key Stock sync');
  await expect.poll(() => page.locator('#notice').textContent()).toBe(`Created the API key Stock sync (${key.slice(0, 12)}…).`);

  const row = rows().filter({ hasText: 'Stock sync' });
  const cells = row.locator('td');
  expect(await cells.nth(0).textContent()).toBe('Stock sync120 requests a minute');
  expect(await cells.nth(1).textContent()).toBe(`${key.slice(0, 12)}…`);
  expect(await cells.nth(2).textContent()).toBe('invites:read, members:read');
  // Dates in words, relative, with the one absolute form on hover whatever the browser's locale.
  expect(await cells.nth(3).textContent()).toBe('just now');
  expect(await cells.nth(3).locator('time').getAttribute('title')).toMatch(STAMP);
  expect(await cells.nth(4).textContent()).toMatch(/^in \d+ (months|year|days)$/);
  expect(await cells.nth(4).locator('time').getAttribute('title')).toBe(`${nextYear}-03-01 00:00 UTC`);
  expect(await cells.nth(5).textContent()).toBe('never');

  const [stored, ...more] = await storedKeys();
  expect(more).toEqual([]);
  expect(stored).toMatchObject({ name: 'Stock sync', prefix: key.slice(0, 12), revoked: false, expires: true });
  expect(stored!.key_hash).toBe(await hashOf(key));
  expect(await form().getByLabel('Name').inputValue()).toBe('');
  // The key the dialog showed is the one that works, and its use shows on the next list.
  expect(await membersWith(key)).toBe(200);
  await page.getByRole('button', { name: 'First page' }).and(page.locator('#api-keys-first')).click();
  await expect.poll(() => cells.nth(5).textContent()).toMatch(RELATIVE);
  expect(await cells.nth(5).locator('time').getAttribute('title')).toMatch(STAMP);
});

it('refuses a key with no scope as a sentence, the code after it, and makes nothing', async () => {
  await form().getByLabel('Name').fill('No scope');
  await form().getByRole('button', { name: 'Create API key' }).click();
  await expect.poll(() => page.locator('#api-keys-error').textContent()).toMatch(inWords('VALIDATION_FAILED'));
  expect(await storedKeys()).toHaveLength(1);
  await form().getByLabel('Name').fill('');
});

it('rolls the key with the overlap chosen: the new key shown once, the old one listed until the overlap ends', async () => {
  const [old] = shownKeys;
  const oldLabel = `Roll the API key Stock sync (${old!.slice(0, 12)})`;
  await page.getByLabel('After a roll, the old key keeps working for').selectOption('300');
  await page.getByRole('button', { name: oldLabel }).click();
  const confirm = page.getByRole('dialog', { name: 'Roll this API key?' });
  expect(await confirm.textContent()).toContain('the old one keeps working for 5 minutes, then stops.');
  await confirm.getByRole('button', { name: 'Roll key' }).click();
  const fresh = await takeKeyOnce('New key for Stock sync');
  expect(fresh).not.toBe(old);
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(oldLabel);
  await expect
    .poll(() => page.locator('#notice').textContent())
    .toBe(`Rolled the API key Stock sync: the new one is ${fresh.slice(0, 12)}…; the old one stops in 5 minutes.`);

  await expect.poll(() => rows().count()).toBe(2);
  const oldExpiry = rows()
    .filter({ hasText: old!.slice(0, 12) })
    .locator('td')
    .nth(4);
  expect(await oldExpiry.textContent()).toMatch(/^in [345] min$/);
  const until = (await oldExpiry.locator('time').getAttribute('title')) ?? '';
  expect(until).toMatch(STAMP);
  const minutesLeft = (Date.parse(until.replace(' UTC', 'Z').replace(' ', 'T')) - Date.now()) / 60_000;
  expect(minutesLeft).toBeGreaterThan(3);
  expect(minutesLeft).toBeLessThanOrEqual(5);
  const stored = await storedKeys();
  expect(stored.map((k) => k.key_hash)).toEqual([await hashOf(old!), await hashOf(fresh)]);
  // Both work while the overlap lasts.
  expect([await membersWith(old!), await membersWith(fresh)]).toEqual([200, 200]);
});

it('refuses a second roll of the old key as a sentence beside its row', async () => {
  const [old] = shownKeys;
  await page.getByRole('button', { name: `Roll the API key Stock sync (${old!.slice(0, 12)})` }).click();
  await page.getByRole('dialog', { name: 'Roll this API key?' }).getByRole('button', { name: 'Roll key' }).click();
  const row = rows().filter({ hasText: old!.slice(0, 12) });
  await expect
    .poll(() => row.locator('output').textContent())
    .toBe('This API key was already rolled; roll the key that replaced it. code: API_KEY_ROLLED');
  expect(await page.locator('#token-dialog').isVisible()).toBe(false);
  expect(await storedKeys()).toHaveLength(2);
});

it('revokes the new key after a confirmation: gone from the list, revoked in PostgreSQL', async () => {
  const fresh = shownKeys[1]!;
  await page.getByRole('button', { name: `Revoke the API key Stock sync (${fresh.slice(0, 12)})` }).click();
  await page.getByRole('dialog', { name: 'Revoke this API key?' }).getByRole('button', { name: 'Revoke key' }).click();
  await expect.poll(() => page.locator('#notice').textContent()).toBe(`Revoked the API key Stock sync (${fresh.slice(0, 12)}…).`);
  expect(await rows().count()).toBe(1);
  expect(await page.locator('#api-key-rows').textContent()).not.toContain(fresh.slice(0, 12));
  expect((await storedKeys()).map((k) => k.revoked)).toEqual([false, true]);
  expect(await membersWith(fresh)).toBe(401);
});

it('fits the panel in its card at 1 280 px and at 1 366 × 768', async () => {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 1366, height: 768 },
  ]) {
    await page.setViewportSize(size);
    expect(await panelOverflow(page, '#api-keys'), `${size.width}×${size.height}`).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});

it('kept every key out of storage, readable cookies, the browser console and the logs, and broke no CSP', async () => {
  expect(shownKeys).toHaveLength(2);
  const readable = await readableByScripts(page, browser);
  const lines = consoleLines.join('\n');
  const logs = server.logs.join('\n');
  for (const key of shownKeys) {
    expect(readable).not.toContain(key);
    expect(lines).not.toContain(key);
    expect(logs).not.toContain(key);
  }
  expect(refusals).toEqual([]);
});

it('tells a member who is no admin that only admins manage API keys, and shows none of them', async () => {
  await signInAsNewViewer(page, server);
  expect(await page.locator('#api-keys-error').textContent()).toBe(
    'Only the organisation’s admins (OrganizationAdmin) can see and manage API keys.',
  );
  expect(await form().isHidden()).toBe(true);
  expect(await page.locator('#api-key-list').isHidden()).toBe(true);
  expect(await page.locator('#api-keys').textContent()).not.toContain('Stock sync');
});

// The console's Webhook endpoints panel in headless Chromium: an endpoint added with its signing secret shown once in a
// dialog with a copy button, then gone from the page, its storage and the browser's console; the secret rotated (shown
// once too); a delivery made by a member's role change listed, failed (as the delivery engine would leave it) and
// retried; the endpoint disabled, a retry then refused in words, and enabled again; a URL the policy refuses said as a
// sentence; the panel inside its card at 1 280 and 1 366 × 768; and a member who is no admin told so instead.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { memberFixtures } from '../support/members.ts';
import { launchChromium, type Browser } from './support/chromium.ts';
import { startConsoleServer, type ConsoleServer } from './support/console-server.ts';
import { signIn, signInAsNewViewer } from './support/sign-in.ts';
import { inWords, panelOverflow, readableByScripts, RELATIVE, STAMP } from './support/panel-checks.ts';

let server: ConsoleServer;
let browser: Browser;
let page: Page;
const consoleLines: string[] = [];
const refusals: string[] = [];
/** Every secret a dialog showed: searched for everywhere afterwards. */
const shownSecrets: string[] = [];
const URL_OF_ENDPOINT = 'http://127.0.0.1:9/hooks/runstate';
const LABEL = `Stock sync (${URL_OF_ENDPOINT})`;

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

const panel = () => page.locator('#webhooks');
const storedEndpoints = async () =>
  (
    await server.stack.db.query<{ id: string; url: string; state: string; secret_version: number; events: string[] }>(
      'SELECT id, url, state, secret_version, events FROM webhook_endpoints WHERE organization_id = $1',
      [server.admin.organizationId],
    )
  ).rows;

/** Reads the secret the dialog shows, copies it with the button, closes the dialog, and checks it left the page. */
async function takeSecretOnce(title: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.waitFor();
  const secret = (await page.locator('#token-value').textContent()) ?? '';
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
  expect(await dialog.textContent()).toContain('Shown this once');
  await dialog.getByRole('button', { name: 'Copy secret' }).click();
  await page.locator('#token-copy-status', { hasText: /Copied|Selected/ }).waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await dialog.getByRole('button', { name: 'Done, close' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await expect.poll(() => page.locator('#token-value').textContent()).toBe('');
  expect(await readableByScripts(page, browser)).not.toContain(secret);
  shownSecrets.push(secret);
  return secret;
}

it('adds an endpoint: the signing secret is shown once with a copy button, then is nowhere in the page', async () => {
  const form = panel().locator('#webhook-form');
  await form.getByLabel('URL').fill(URL_OF_ENDPOINT);
  await form.getByLabel('Description (optional)').fill('Stock sync');
  await form.getByLabel('member.role_changed').check();
  await form.getByRole('button', { name: 'Add endpoint' }).click();
  await takeSecretOnce('Signing secret of the new endpoint');
  await expect.poll(() => page.locator('#notice').textContent()).toBe(`Added the endpoint ${URL_OF_ENDPOINT}.`);
  const row = page.locator('#webhook-rows tr', { hasText: URL_OF_ENDPOINT });
  expect(await row.locator('td').nth(1).textContent()).toBe('member.role_changed');
  expect(await row.locator('td').nth(2).textContent()).toBe('enabled');
  expect(await row.locator('td').nth(3).textContent()).toBe('version 1');
  expect(await storedEndpoints()).toEqual([
    expect.objectContaining({ url: URL_OF_ENDPOINT, state: 'enabled', secret_version: 1, events: ['member.role_changed'] }),
  ]);
  // The form is back empty for the next one.
  expect(await form.getByLabel('URL').inputValue()).toBe('');
});

it('says a refused URL as a sentence, the code after it, and adds nothing', async () => {
  const form = panel().locator('#webhook-form');
  await form.getByLabel('URL').fill('http://10.1.2.3/hook');
  await form.getByLabel('invite.created').check();
  await form.getByRole('button', { name: 'Add endpoint' }).click();
  await expect.poll(() => page.locator('#webhooks-error').textContent()).toMatch(inWords('WEBHOOK_URL_FORBIDDEN'));
  expect(await storedEndpoints()).toHaveLength(1);
  await form.getByLabel('URL').fill('');
  await form.getByLabel('invite.created').uncheck();
});

it('rotates the secret after a confirmation: a new one shown once, the row says the previous one still signs', async () => {
  await page.getByRole('button', { name: `Rotate the secret of ${LABEL}` }).click();
  await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
  const second = await takeSecretOnce('New signing secret');
  expect(second).not.toBe(shownSecrets[0]);
  // The row was redrawn under the dialog: focus is back on its (new) Rotate button.
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Rotate the secret of ${LABEL}`);
  const secretCell = page.locator('#webhook-rows tr', { hasText: URL_OF_ENDPOINT }).locator('td').nth(3);
  await expect
    .poll(() => secretCell.textContent())
    .toMatch(/^version 2the previous one signs too until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  expect((await storedEndpoints())[0]!.secret_version).toBe(2);
});

it("lists the delivery a member's role change made, and retries it once it failed", async () => {
  const member = await memberFixtures(server.stack).addMember(server.admin.organizationId, 'Viewer');
  const changed = await server.stack.request('PATCH', `/orgs/${server.admin.organizationId}/members/${member.userId}`, {
    token: server.org.adminToken,
    body: { roleCode: 'Accountant' },
  });
  expect(changed.status).toBe(200);
  await page.getByRole('button', { name: `Deliveries of ${LABEL}` }).click();
  await expect.poll(() => page.locator('#deliveries-title').textContent()).toBe(`Deliveries to ${URL_OF_ENDPOINT}`);
  const row = page.locator('#delivery-rows tr').first();
  await expect.poll(() => row.locator('td').nth(1).textContent()).toBe('member.role_changed');
  expect(await row.locator('td').nth(0).textContent()).toMatch(RELATIVE);
  expect(await row.locator('td time').first().getAttribute('title')).toMatch(STAMP);
  // The engine tries it right after the role change's answer; nothing listens on port 9, so the attempt fails and
  // the delivery stays pending for its next slot.
  await expect
    .poll(async () => {
      await page.getByRole('button', { name: 'Newest deliveries' }).click();
      return row.locator('td').nth(3).textContent();
    })
    .toBe('1');
  expect(await row.locator('td').nth(2).textContent()).toBe('pending');
  expect(await row.locator('td').nth(4).textContent()).toMatch(/^.+ at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);

  // The delivery engine's outcome after its last attempt, written as it writes it.
  const [{ id: deliveryId } = { id: '' }] = (
    await server.stack.db.query<{ id: string }>('SELECT id FROM webhook_endpoint_deliveries WHERE organization_id = $1', [
      server.admin.organizationId,
    ])
  ).rows;
  await server.stack.db.query(
    `UPDATE webhook_endpoint_deliveries SET state = 'failed', attempts = 9, ended_at = now(), last_attempt_at = now(),
       next_attempt_at = NULL, last_status = 500, last_error = 'status 500' WHERE id = $1`,
    [deliveryId],
  );
  await page.getByRole('button', { name: 'Newest deliveries' }).click();
  await expect.poll(() => row.locator('td').nth(2).textContent()).toBe('failed');
  expect(await row.locator('td').nth(3).textContent()).toBe('9');
  expect(await row.locator('td').nth(4).textContent()).toMatch(/^HTTP 500: status 500 at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);

  await row.getByRole('button', { name: /^Retry the member\.role_changed delivery of / }).click();
  await expect.poll(() => row.locator('td').nth(2).textContent()).toBe('pending');
  expect(await page.locator('#notice').textContent()).toMatch(/^The member\.role_changed delivery of .* is pending again/);
  // The retry starts the schedule again and is tried right after its answer, as a new delivery is: the attempt to
  // port 9 fails, so the delivery waits, pending, for its next slot with one attempt.
  await expect
    .poll(
      async () =>
        (
          await server.stack.db.query<{ state: string; attempts: number }>(
            'SELECT state, attempts FROM webhook_endpoint_deliveries WHERE id = $1',
            [deliveryId],
          )
        ).rows,
    )
    .toEqual([{ state: 'pending', attempts: 1 }]);
});

it('disables the endpoint, refuses a retry in words while it is disabled, and enables it again', async () => {
  await page.getByRole('button', { name: `Disable ${LABEL}` }).click();
  const stateCell = page.locator('#webhook-rows tr', { hasText: URL_OF_ENDPOINT }).locator('td').nth(2);
  await expect.poll(() => stateCell.textContent()).toBe('disabled by an admin');
  await expect
    .poll(() => page.locator('#notice').textContent())
    .toBe(`Disabled ${URL_OF_ENDPOINT}: nothing is sent to it until it is enabled.`);
  expect((await storedEndpoints())[0]!.state).toBe('disabled');

  const row = page.locator('#delivery-rows tr').first();
  await row.getByRole('button', { name: /^Retry / }).click();
  await expect
    .poll(() => row.locator('output').textContent())
    .toBe('This webhook endpoint is disabled; enable it first. code: WEBHOOK_ENDPOINT_DISABLED');

  await page.getByRole('button', { name: `Enable ${LABEL}` }).click();
  await expect.poll(() => stateCell.textContent()).toBe('enabled');
  expect((await storedEndpoints())[0]!.state).toBe('enabled');
  // The refusal beside the delivery went with the redraw.
  await expect.poll(() => row.locator('output').textContent()).toBe('');
});

it("words the dialog for an invite's token again after the secrets (it is the same dialog)", async () => {
  const invite = page.locator('#invite-form');
  await invite.getByLabel('Email').fill('after-secrets@example.test');
  await invite.getByLabel('Delivery').selectOption('none');
  await invite.getByRole('button', { name: 'Create invite' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invitation token' });
  await dialog.waitFor();
  expect(await dialog.getByRole('button', { name: 'Copy token' }).isVisible()).toBe(true);
  expect(await dialog.textContent()).toContain('hand it to the invitee');
  await page.keyboard.press('Escape');
  await expect.poll(() => page.locator('#token-value').textContent()).toBe('');
});

it('fits the panel, deliveries open, in its card at 1 280 px and at 1 366 × 768', async () => {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 1366, height: 768 },
  ]) {
    await page.setViewportSize(size);
    expect(await panelOverflow(page, '#webhooks'), `${size.width}×${size.height}`).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  // Positive control: a cell that cannot wrap, wider than the window, is caught.
  await page.evaluate(() => {
    const wide = document.createElement('span');
    wide.id = 'too-wide';
    wide.textContent = 'x'.repeat(400);
    document.querySelector('#delivery-rows td')?.append(wide);
  });
  expect(await panelOverflow(page, '#webhooks')).not.toEqual([]);
  await page.evaluate(() => document.getElementById('too-wide')?.remove());
});

it('kept every secret out of storage, readable cookies, the browser console and the logs, and broke no CSP', async () => {
  expect(shownSecrets).toHaveLength(2);
  const readable = await readableByScripts(page, browser);
  const lines = consoleLines.join('\n');
  const logs = server.logs.join('\n');
  for (const secret of shownSecrets) {
    expect(readable).not.toContain(secret);
    expect(lines).not.toContain(secret);
    expect(logs).not.toContain(secret);
  }
  expect(refusals).toEqual([]);
});

it('tells a member who is no admin that only admins manage endpoints, and shows none of them', async () => {
  await signInAsNewViewer(page, server);
  expect(await page.locator('#webhooks-error').textContent()).toBe(
    'Only the organisation’s admins (OrganizationAdmin) can see and manage webhook endpoints.',
  );
  expect(await page.locator('#webhook-form').isHidden()).toBe(true);
  expect(await page.locator('#webhook-list').isHidden()).toBe(true);
  expect(await page.locator('#webhooks').textContent()).not.toContain(URL_OF_ENDPOINT);
});

// The console's two views over the newer API routes, in headless Chromium: the invite history (GET …/invites/history,
// paged newest first) and each Syrve connection's runtime state (GET …/syrve/connections/{id}/runtime) with "run test".
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { uuidv7 } from 'uuidv7';
import { connectFake, startFakeSyrve, type FakeSyrve } from '../support/syrve.ts';
import { launchChromium, type Browser } from './support/chromium.ts';
import { startConsoleServer, type ConsoleServer } from './support/console-server.ts';
import { signIn } from './support/sign-in.ts';

let server: ConsoleServer;
let browser: Browser;
let fake: FakeSyrve;
let page: Page;

beforeAll(async () => {
  [server, browser, fake] = await Promise.all([startConsoleServer(), launchChromium(), startFakeSyrve()]);
  page = await browser.context.newPage();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
});

/** The history table's rows as [action, correlation id (whole, from the cell's title)], top to bottom. */
async function historyRows(): Promise<Array<[string, string]>> {
  return page
    .locator('#history-rows tr')
    .evaluateAll((rows) =>
      rows.map((row) => [row.children[1]!.textContent ?? '', (row.children[5] as HTMLElement).title] as [string, string]),
    );
}

async function createThroughForm(email: string): Promise<void> {
  const form = page.locator('#invite-form');
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Delivery').selectOption('none');
  await form.getByRole('button', { name: 'Create invite' }).click();
  await page.getByRole('dialog', { name: 'Invitation token' }).waitFor();
  await page.getByRole('button', { name: 'Done, close' }).click();
  await page.locator('#invite-rows tr', { hasText: email }).waitFor();
}

it('shows invite.created and invite.cancelled in the history, newest first', async () => {
  await signIn(page, server);
  await createThroughForm('history-invitee@example.test');
  await page.getByRole('button', { name: 'Cancel the invite for history-invitee@example.test' }).click();
  await page.getByRole('dialog', { name: 'Cancel this invite?' }).getByRole('button', { name: 'Cancel invite' }).click();
  await page.locator('#history-rows', { hasText: 'invite.cancelled' }).waitFor();
  const rows = await historyRows();
  expect(rows.map(([action]) => action)).toEqual(['invite.cancelled', 'invite.created']);
  expect(await page.locator('#history-error').textContent()).toBe('');
});

it('pages through the history with Older: every event once, none skipped, Newest back to the top', async () => {
  // 45 more events, written straight in: five pages of 10 with the two above.
  await server.stack.db.query(
    `INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, details)
     SELECT gen_random_uuid(), now() - interval '1 hour' + g * interval '1 second', $2, $1, NULL, gen_random_uuid(),
            'invite.created', 'seeded-' || g, '{}'::jsonb
       FROM generate_series(1, 45) g`,
    [server.admin.organizationId, server.admin.userId],
  );
  await page.getByRole('button', { name: 'Newest' }).click();
  await page.locator('#history-rows tr', { hasText: 'seeded-45' }).waitFor();
  const seen: string[] = [];
  for (let pageNumber = 0; pageNumber < 10; pageNumber += 1) {
    const rows = await historyRows();
    seen.push(...rows.map(([, correlationId]) => correlationId));
    const older = page.getByRole('button', { name: 'Older' });
    if (await older.isDisabled()) break;
    const last = rows.at(-1)![1];
    await older.click();
    await page.waitForFunction((before) => {
      const cells = document.querySelectorAll<HTMLElement>('#history-rows tr td:nth-child(6)');
      return cells.length > 0 && cells[cells.length - 1]!.title !== before;
    }, last);
  }
  const seeded = Array.from({ length: 45 }, (_, i) => `seeded-${45 - i}`);
  expect(seen.filter((id) => id.startsWith('seeded-'))).toEqual(seeded);
  expect(seen).toHaveLength(47);
  expect(new Set(seen).size).toBe(47);
  await page.getByRole('button', { name: 'Newest' }).click();
  await page.locator('#history-rows tr').first().getByText('invite.cancelled').waitFor();
});

it('shows each Syrve connection runtime state, and Run test fills the session cache', async () => {
  const connection = await connectFake(server.stack, server.org, fake, { name: 'Main kitchen RMS', password: `canary-syrve-${uuidv7()}` });
  await page.locator('#syrve-refresh').click();
  const row = page.locator('#syrve-rows tr', { hasText: 'Main kitchen RMS' });
  await row.waitFor();
  expect(await row.textContent()).toContain('none cached');
  expect(await row.textContent()).toContain('free');
  expect(await row.textContent()).toContain('closed (0 failures)');
  await row.getByRole('button', { name: 'Run a test of Main kitchen RMS' }).click();
  const tested = page.locator('#syrve-rows tr', { hasText: 'test ok' });
  await tested.waitFor();
  expect(await tested.textContent()).toMatch(/cached, \d+ s left/);
  // Focus stays on the row's button after it is drawn again.
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Run a test of Main kitchen RMS');
  // Never a session value or a password on the page.
  const html = await page.content();
  expect(html).not.toContain('canary-syrve-');
  expect(html).not.toContain(connection.login + ':');
});

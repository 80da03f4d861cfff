// The console's layout in headless Chromium, every panel filled with rows: at 1 280 px (two cards a row) and on a
// 390 px phone, no button, field, select or link is cut off by its card or its table, and no card or the page scrolls
// sideways. Then, at 1 280 px, it writes docs/console.png, so the screenshot the docs show is the console as it runs now:
// the same bytes each run (the people's emails fixed here, the rest held still by ./support/docs-screenshot.ts), so the
// file changes in git only when the console's look does.
// Last, a Viewer's refusals read in words in each panel, the code a smaller detail after them.
import { decodeJwt } from 'jose';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { systemClock } from '../../lib/deps.ts';
import { auditExportTask } from '../../lib/runtime/jobs/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { memberFixtures } from '../support/members.ts';
import { connectFake, startFakeSyrve, type FakeSyrve } from '../support/syrve.ts';
import { launchChromium, type Browser } from './support/chromium.ts';
import { startConsoleServer, type ConsoleServer } from './support/console-server.ts';
import { writeDocsScreenshot } from './support/docs-screenshot.ts';
import { clippedControls, inWords, panelOverflow } from './support/panel-checks.ts';
import { signIn, signInAsNewViewer } from './support/sign-in.ts';

const SCREENSHOT = fileURLToPath(new URL('../../docs/console.png', import.meta.url));
const PANELS = ['#invites', '#history', '#members', '#syrve', '#exports', '#passkeys', '#policy', '#webhooks', '#api-keys', '#sessions'];
const PHONE_AGENT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

let server: ConsoleServer;
let browser: Browser;
let fake: FakeSyrve;
let page: Page;
/** The admin removed after inviting someone: the history must not show their id, nor any user's. */
let former: { userId: string; token: string };

beforeAll(async () => {
  [server, browser, fake] = await Promise.all([
    startConsoleServer({ adminEmail: 'admin@kitchen-north.example.test' }),
    launchChromium(),
    startFakeSyrve(),
  ]);
  const org = server.org;
  const people = memberFixtures(server.stack);
  const accountant = await people.addMember(org.organizationId, 'Accountant', null, 'payroll@kitchen-north.example.test');
  await people.addMember(org.organizationId, 'Viewer', org.locationId, 'head.chef.main.kitchen@kitchen-north.example.test');
  // An admin who invited someone and has since been removed: the history calls them "a former member".
  former = await people.addMember(org.organizationId, 'OrganizationAdmin');
  const asAdmin = (method: string, path: string, body?: unknown, token = org.adminToken) =>
    server.stack.request(method, `/orgs/${org.organizationId}${path}`, { token, ...(body === undefined ? {} : { body }) });
  expect(
    (
      await asAdmin(
        'POST',
        '/invites',
        { email: 'cook.with.a.rather.long.address@example.test', roleCode: 'Viewer', delivery: 'none' },
        former.token,
      )
    ).status,
  ).toBe(201);
  expect((await people.remove(org.organizationId, former.userId, org.adminToken)).status).toBe(204);
  expect(
    (
      await asAdmin('POST', '/invites', {
        email: 'new.accountant@example.test',
        roleCode: 'Accountant',
        locationId: org.locationId,
        delivery: 'none',
      })
    ).status,
  ).toBe(201);
  const endpoint = await asAdmin('POST', '/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hooks/runstate/a-rather-long-path/that-has-to-wrap?tenant=kitchen-north',
    events: ['member.role_changed', 'member.removed'],
    description: 'Payroll sync',
  });
  expect(endpoint.status, await endpoint.clone().text()).toBe(201);
  expect(
    (await asAdmin('POST', '/api-keys', { name: 'Stock sync', scopes: ['invites:read', 'members:read'], rateLimitPerMinute: 120 })).status,
  ).toBe(201);
  expect((await asAdmin('PATCH', `/members/${accountant.userId}`, { roleCode: 'Viewer', locationId: null })).status).toBe(200);
  await connectFake(server.stack, org, fake, { name: 'Main kitchen RMS' });
  // The admin signed in on a phone too: the sessions panel names it.
  const phone = await server.stack.request('POST', '/auth/login', {
    body: { organizationId: org.organizationId, email: server.admin.email, password: server.admin.password },
    headers: { 'user-agent': PHONE_AGENT, [TEST_CLIENT_IP_HEADER]: '127.5.0.1' },
  });
  expect(phone.status).toBe(200);
  expect(decodeJwt(((await phone.json()) as { accessToken: string }).accessToken).sid).toBeTypeOf('string');

  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, server);
  await page.getByRole('button', { name: 'Start an export' }).click();
  await page
    .locator('#export-list li')
    .first()
    .getByText(/queued|running/)
    .waitFor();
  await auditExportTask.run(server.stack.deps, createBudget({ commands: 10_000, timeMs: 30_000 }, systemClock), {
    correlationId: 'layout',
  });
  await page
    .locator('#export-list li')
    .first()
    .getByText(/done 100%/)
    .waitFor({ timeout: 10_000 });
  await page.getByRole('button', { name: 'Deliveries of Payroll sync' }).click();
  await page.locator('#delivery-rows tr').first().waitFor();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
});

/** Every panel's problems at the current viewport, by panel. */
async function layoutProblems(): Promise<Record<string, string[]>> {
  const problems: Record<string, string[]> = {};
  for (const panel of PANELS) {
    const found = [...(await clippedControls(page, panel)), ...(await panelOverflow(page, panel))];
    if (found.length > 0) problems[panel] = found;
  }
  return problems;
}

it('shows every panel with rows, the history naming people, the sessions naming clients', async () => {
  for (const rows of [
    '#invite-rows',
    '#history-rows',
    '#member-rows',
    '#syrve-rows',
    '#webhook-rows',
    '#delivery-rows',
    '#api-key-rows',
    '#session-rows',
  ])
    expect(await page.locator(`${rows} tr`).count(), rows).toBeGreaterThan(0);
  const actors = await page.locator('#history-rows tr td:nth-child(3)').allTextContents();
  expect(actors).toContain(server.admin.email);
  expect(actors).toContain('a former member');
  // No user id, nor its tail, anywhere in the page (docs/console.md#what-it-does).
  const html = await page.content();
  // (The fixtures' emails hold a tail of the id, so it is the id and the tail as the page used to write it, "…d003".)
  for (const userId of [server.admin.userId, former.userId]) {
    expect(html).not.toContain(userId);
    expect(html).not.toContain(`…${userId.slice(-8)}`);
  }
  expect(await page.locator('#session-rows').textContent()).toContain('Mobile Safari 17 on iOS 17.5mobile');
});

it('cuts off no control and scrolls no card sideways at 1 280 px, and writes docs/console.png', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(await layoutProblems()).toEqual({});
  await writeDocsScreenshot(page, SCREENSHOT, server.stack.config.inviteTtlSeconds * 1000);
});

it('cuts off no control and scrolls no card sideways on a 390 px phone', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  // The cards have stacked their rows (style.ts): a table's heading row is no longer shown.
  await expect
    .poll(() =>
      page
        .locator('#member-rows td')
        .first()
        .evaluate((td) => getComputedStyle(td).display),
    )
    .toBe('block');
  expect(await layoutProblems()).toEqual({});
  await page.setViewportSize({ width: 1280, height: 800 });
});

it("words a Viewer's refusals in every admin panel, the code as a detail after them", async () => {
  await signInAsNewViewer(page, server);
  await page.getByRole('button', { name: 'Start an export' }).click();
  await expect.poll(() => page.locator('#exports-error').textContent()).toMatch(inWords('FORBIDDEN'));
  for (const error of ['#invites-error', '#history-error', '#members-error', '#syrve-error', '#policy-error', '#exports-error']) {
    expect(await page.locator(error).textContent(), error).toMatch(inWords('FORBIDDEN'));
    expect(await page.locator(`${error} small.code`).textContent(), error).toBe('code: FORBIDDEN');
  }
  expect(await page.locator('#api-keys-error').textContent()).toBe(
    'Only the organisation’s admins (OrganizationAdmin) can see and manage API keys.',
  );
  // The refusals fit their cards on a phone too.
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await layoutProblems()).toEqual({});
});

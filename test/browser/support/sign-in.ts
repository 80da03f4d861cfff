// Signs the server's admin in through the console's own form, as a person would, and waits for the first view.
import type { Page } from 'playwright-core';
import { setPassword } from '../../support/fixtures.ts';
import { memberFixtures } from '../../support/members.ts';
import type { ConsoleServer } from './console-server.ts';

/** The page is ready when every view has loaded once (the script sets data-ready on <body>). */
export async function waitForViews(page: Page): Promise<void> {
  await page.locator('body[data-ready="yes"]').waitFor({ timeout: 15_000 });
}

/** `baseUrl`: where the page is opened (the server's passkeyBaseUrl for the passkey ceremonies). */
export async function signIn(page: Page, server: ConsoleServer, baseUrl: string = server.baseUrl): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  const form = page.locator('#password-form');
  await form.getByLabel('Organisation (slug or id)').fill(server.admin.slug);
  await form.getByLabel('Email').fill(server.admin.email);
  await form.getByLabel('Password').fill(server.admin.password);
  await form.getByRole('button', { name: 'Sign in', exact: true }).click();
  await waitForViews(page);
}

/** Signs the current person out and a new Viewer of the server's organisation in, through the same form. */
export async function signInAsNewViewer(page: Page, server: ConsoleServer): Promise<void> {
  const viewer = await memberFixtures(server.stack).addMember(server.admin.organizationId, 'Viewer');
  const password = `viewer-password-${crypto.randomUUID()}`;
  await setPassword(server.stack.db, viewer.userId, password);
  await page.getByRole('button', { name: 'Sign out' }).click();
  const form = page.locator('#password-form');
  await form.getByLabel('Organisation (slug or id)').fill(server.admin.slug);
  await form.getByLabel('Email').fill(viewer.email);
  await form.getByLabel('Password', { exact: true }).fill(password);
  await form.getByRole('button', { name: 'Sign in', exact: true }).click();
  await waitForViews(page);
}

// Every route taking an email trims and lowercases it before checking it (docs/api.md#conventions): an address typed
// with surrounding spaces or capitals is the same address, not a 400, and what is still no address stays a 400.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { createFolderMailbox, readMailbox } from '../../local/mailbox/folder-mailbox.ts';
import { setPassword } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let mailboxDir: string;
beforeAll(async () => {
  mailboxDir = await mkdtemp(join(tmpdir(), 'runstate-mailbox-'));
  stack = await startStack({
    env: { PASSWORD_RESET_LINK_BASE: 'https://app.runstate.test/auth/password-reset' },
    deps: { notifier: createFolderMailbox(mailboxDir) },
  });
});
afterAll(async () => {
  await stack?.close();
  await rm(mailboxDir, { recursive: true, force: true });
});

/** The address as a person pastes it: a space before, a tab and a newline after, capitals. */
const padded = (email: string) => ` ${email.toUpperCase()}\t\n`;

let ipCounter = 0;
const freshIp = () => `127.9.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

describe('an email with surrounding spaces and capitals', () => {
  it('signs in at POST /auth/login', async () => {
    const org = await stack.seedOrganization();
    const password = `pw-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    const response = await stack.request('POST', '/auth/login', {
      body: { organizationId: org.organizationId, email: padded(org.adminEmail), password },
      headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'signed-in', userId: org.adminId });
  });

  it('mails the reset link to the account at POST /auth/password-reset', async () => {
    const org = await stack.seedOrganization();
    const response = await stack.request('POST', '/auth/password-reset', {
      body: { organizationId: org.organizationId, email: padded(org.adminEmail) },
    });
    expect(response.status).toBe(202);
    await expect
      .poll(async () => (await readMailbox(mailboxDir)).filter((m) => m.to === org.adminEmail).length, { timeout: 5_000 })
      .toBe(1);
  });

  it('invites the trimmed, lowercased address at POST /orgs/{orgId}/invites and finds it with the list filter', async () => {
    const org = await stack.seedOrganization();
    const email = `New.Person-${uuidv7()}@Example.test`;
    const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: `  ${email} `, roleCode: 'Viewer' },
    });
    expect(created.status).toBe(201);
    const { invite } = (await created.json()) as { invite: { inviteId: string; email: string } };
    expect(invite.email).toBe(email.toLowerCase());
    const filter = encodeURIComponent(padded(email));
    const listed = await stack.request('GET', `/orgs/${org.organizationId}/invites?email=${filter}`, { token: org.adminToken });
    expect(listed.status).toBe(200);
    const { invites } = (await listed.json()) as { invites: { inviteId: string }[] };
    expect(invites.map((item) => item.inviteId)).toEqual([invite.inviteId]);
  });
});

describe('what is still no address after trimming', () => {
  it.each([
    ['only spaces', '   '],
    ['a space inside', ' some one@example.test '],
    ['no domain', ' someone@ '],
    ['over 254 characters once trimmed', ` ${'a'.repeat(64)}@${'b'.repeat(190)}.test `],
  ])('answers 400 VALIDATION_FAILED on every email route: %s', async (_name, email) => {
    const org = await stack.seedOrganization();
    const answers = await Promise.all([
      stack.request('POST', '/auth/login', {
        body: { organizationId: org.organizationId, email, password: 'x' },
        headers: { [TEST_CLIENT_IP_HEADER]: freshIp() },
      }),
      stack.request('POST', '/auth/password-reset', { body: { organizationId: org.organizationId, email } }),
      stack.request('POST', `/orgs/${org.organizationId}/invites`, { token: org.adminToken, body: { email, roleCode: 'Viewer' } }),
      stack.request('GET', `/orgs/${org.organizationId}/invites?email=${encodeURIComponent(email)}`, { token: org.adminToken }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    }
  });
});

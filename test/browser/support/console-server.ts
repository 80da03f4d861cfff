// The app served over HTTP on 127.0.0.1 (the Node entry, as npm start runs it) with the console on, over the local stack
// of this test run, plus an organisation whose admin signs in with a canary password. Invitations can be emailed, as with
// npm start: INVITE_LINK_BASE is this server's invite page and the messages land in a mailbox folder of the test's own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerType } from '@hono/node-server';
import { uuidv7 } from 'uuidv7';
import { serveNode } from '../../../functions/entries/node.ts';
import { loadConfig } from '../../../lib/config/index.ts';
import { createJsonLogger } from '../../../lib/log/logger.ts';
import type { Notifier } from '../../../lib/notify/notifier.ts';
import { createFolderMailbox, readMailbox, type MailboxMessage } from '../../../local/mailbox/folder-mailbox.ts';
import { freePort } from '../../../local/processes/free-port.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../../local/processes/scratch-database.ts';
import type { SeededOrganization } from '../../../local/stack/fixtures.ts';
import { setPassword } from '../../support/fixtures.ts';
import { startStack, type TestStack } from '../../support/stack.ts';

export interface ConsoleServer {
  baseUrl: string;
  /**
   * The same server as http://localhost:<port>, the passkeys' relying party (PASSKEY_RP_ID=localhost): WebAuthn takes no
   * IP address for one, and a browser counts localhost as a secure context over plain http.
   */
  passkeyBaseUrl: string;
  stack: TestStack;
  /** The served app's log lines, for the canary checks. */
  logs: string[];
  admin: { organizationId: string; locationId: string; userId: string; email: string; password: string; slug: string };
  /** The same organisation as the fixtures made it (with a bearer token of the admin, for setting things up by the API). */
  org: SeededOrganization;
  /** Where an emailed invitation's link points: this server's invite page. */
  inviteLinkBase: string;
  /** The messages sent so far, oldest first. */
  mailbox(): Promise<MailboxMessage[]>;
  /** From now on every send fails (as an email API that refuses would), or works again. */
  failSends(failing: boolean): void;
  close(): Promise<void>;
}

export interface ConsoleServerOptions {
  /** The admin's email instead of the fixtures' (which holds a tail of a random id): a fixed one, for the docs' screenshot. */
  adminEmail?: string;
}

export async function startConsoleServer(options: ConsoleServerOptions = {}): Promise<ConsoleServer> {
  // A database of its own: the export task takes the oldest job of any organisation, so no other file's job runs here.
  const database: ScratchDatabase = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  // The link base names the port, so the port is chosen before the configuration is loaded.
  const port = await freePort();
  const inviteLinkBase = `http://127.0.0.1:${port}/invites/accept`;
  const mailboxDir = await mkdtemp(join(tmpdir(), 'runstate-browser-mailbox-'));
  const stack = await startStack({
    databaseUrl: database.url,
    env: {
      CONSOLE_ENABLED: 'true',
      INVITE_LINK_BASE: inviteLinkBase,
      PASSKEY_RP_ID: 'localhost',
      PASSKEY_ORIGINS: `http://localhost:${port}`,
    },
  });
  const logs: string[] = [];
  const mailbox = createFolderMailbox(mailboxDir);
  let failing = false;
  const notifier: Notifier = {
    send: (message) => (failing ? Promise.reject(new Error('the email API answered 503')) : mailbox.send(message)),
  };
  const server: ServerType = await serveNode(
    { ...loadConfig(stack.env), port },
    { logger: createJsonLogger((line) => logs.push(line)), notifier },
  );
  const seeded = await stack.seedOrganization();
  const org = options.adminEmail === undefined ? seeded : await withAdminEmail(stack, seeded, options.adminEmail);
  const password = `canary-password-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    passkeyBaseUrl: `http://localhost:${port}`,
    stack,
    logs,
    org,
    inviteLinkBase,
    mailbox: () => readMailbox(mailboxDir),
    failSends: (on) => {
      failing = on;
    },
    admin: {
      organizationId: org.organizationId,
      locationId: org.locationId,
      userId: org.adminId,
      email: org.adminEmail,
      password,
      // The slug every organisation gets until an admin picks one (migrations/0010_tenants.sql).
      slug: `o-${org.organizationId.replaceAll('-', '')}`,
    },
    close: async () => {
      await new Promise((resolve) => {
        server.close(resolve);
        // The browser's keep-alive sockets would hold close() open.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await stack.close();
      await database.drop();
      await rm(mailboxDir, { recursive: true, force: true });
    },
  };
}

/** The seeded admin under another email: the users row and a bearer token naming it. */
async function withAdminEmail(stack: TestStack, org: SeededOrganization, adminEmail: string): Promise<SeededOrganization> {
  await stack.db.query('UPDATE users SET email = $2 WHERE id = $1', [org.adminId, adminEmail]);
  return { ...org, adminEmail, adminToken: await stack.token({ userId: org.adminId, email: adminEmail }) };
}

// The app served over HTTP on 127.0.0.1 (the Node entry, as npm start runs it) with the console on, over the local stack
// of this test run, plus an organisation whose admin signs in with a canary password.
import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { uuidv7 } from 'uuidv7';
import { serveNode } from '../../../functions/entries/node.ts';
import { loadConfig } from '../../../lib/config/index.ts';
import { createJsonLogger } from '../../../lib/log/logger.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../../local/processes/scratch-database.ts';
import type { SeededOrganization } from '../../../local/stack/fixtures.ts';
import { setPassword } from '../../support/fixtures.ts';
import { startStack, type TestStack } from '../../support/stack.ts';

export interface ConsoleServer {
  baseUrl: string;
  stack: TestStack;
  /** The served app's log lines, for the canary checks. */
  logs: string[];
  admin: { organizationId: string; locationId: string; userId: string; email: string; password: string; slug: string };
  /** The same organisation as the fixtures made it (with a bearer token of the admin, for setting things up by the API). */
  org: SeededOrganization;
  close(): Promise<void>;
}

export async function startConsoleServer(): Promise<ConsoleServer> {
  // A database of its own: the export task takes the oldest job of any organisation, so no other file's job runs here.
  const database: ScratchDatabase = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  const stack = await startStack({ databaseUrl: database.url, env: { CONSOLE_ENABLED: 'true' } });
  const logs: string[] = [];
  const server: ServerType = await serveNode(
    { ...loadConfig(stack.env), port: 0 },
    { logger: createJsonLogger((line) => logs.push(line)) },
  );
  const port = (server.address() as AddressInfo).port;
  const org = await stack.seedOrganization();
  const password = `canary-password-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stack,
    logs,
    org,
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
    },
  };
}

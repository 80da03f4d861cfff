// The link npm start prints to open the admin console signed in as the demo admin (APP_ENV=dev only; docs/console.md).
import { uuidv7 } from 'uuidv7';
import type { Config } from '../../lib/config/index.ts';
import { issueDevLoginCode } from '../../lib/console/dev-login.ts';
import { createDeps } from '../../lib/create-deps.ts';
import type { SeedResult } from './seed.ts';

/** Undefined outside dev or with the console off: then there is no route to consume such a link either. */
export async function devConsoleLink(config: Config, seed: SeedResult, baseUrl: string): Promise<string | undefined> {
  if (config.appEnv !== 'dev' || !config.console.enabled) return undefined;
  const code = await issueDevLoginCode(
    createDeps(config),
    { userId: seed.admin.userId, organizationId: seed.organizationId, email: seed.admin.email },
    `npm-start-${uuidv7()}`,
  );
  return `${baseUrl}/console/dev-login?code=${code}`;
}

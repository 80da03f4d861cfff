// `npm run seed [-- --json]`: migrates and seeds the demo tenant alone (idempotent); with --json, stdout is one JSON object.
import { parseArgs } from 'node:util';
import { loadDevSecrets } from './dev-secrets.ts';
import { applyMigrationsFromDisk } from '../../ops/migrations-from-disk.ts';
import { DEMO, seedDemo } from './seed.ts';
import { displayPath, ensureDataDir, resolveDataDir } from './data-dir.ts';
import { openDatabase } from './database.ts';
import { withPgClient } from './pg-session.ts';
import { createTeardown } from '../stack/teardown.ts';

const USAGE = `Usage: npm run seed [-- --json]

Applies the migrations, then creates the demo tenant if it is missing (fixed ids; safe to repeat).
Database: $DATABASE_URL, else the embedded PostgreSQL in <data>/pg (started for the run, or reused if running).
Token secret: $AUTH_JWT_SECRET, else the one in <data>/dev-secrets.json (created if absent).
<data> is $RUNSTATE_DATA_DIR, else .data/ at the repository root.

  --json   print only { "organizationId", "locationId", "admin": { "userId", "email", "token" } } on stdout
           (npm prints its own "> runstate seed" header on stdout unless run silently: npm run -s seed -- --json)`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help === true) {
    console.log(USAGE);
    return;
  }
  const env = process.env;
  // Progress goes to stderr, so stdout stays one parseable JSON object.
  const log = (line: string): void => console.error(line);
  const dataDir = ensureDataDir(resolveDataDir(env));
  const secrets = await loadDevSecrets(dataDir, env);
  const stack = createTeardown();
  try {
    const database = await openDatabase(env, dataDir, stack, log);
    const tokenOptions = {
      ...(env.AUTH_ISSUER ? { issuer: env.AUTH_ISSUER } : {}),
      ...(env.AUTH_AUDIENCE ? { audience: env.AUTH_AUDIENCE } : {}),
    };
    const { applied, seed } = await withPgClient(database.url, async (client) => ({
      applied: (await applyMigrationsFromDisk(client)).applied,
      seed: await seedDemo(client, secrets.values.AUTH_JWT_SECRET, tokenOptions),
    }));
    log(`database: ${database.description}`);
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
    if (values.json === true) {
      console.log(JSON.stringify(seed));
      return;
    }
    console.log(
      [
        `organisation  ${seed.organizationId}  ${DEMO.organizationName}`,
        `location      ${seed.locationId}  ${DEMO.locationName}`,
        `admin         ${seed.admin.email}  user ${seed.admin.userId}`,
        `admin token   ${seed.admin.token}`,
        `(HS256, signed with AUTH_JWT_SECRET from ${secrets.fromEnv.includes('AUTH_JWT_SECRET') ? 'the environment' : displayPath(secrets.file)}; valid 12 hours)`,
      ].join('\n'),
    );
  } finally {
    await stack.run();
  }
}

main().catch((error: unknown) => {
  console.error(`seed: ${(error as Error).message}`);
  process.exitCode = 1;
});

// `npm run seed [-- --json]`: migrates and seeds the demo tenant alone (idempotent); with --json, stdout is one JSON object.
import { parseArgs } from 'node:util';
import { loadDevSecrets } from './dev-secrets.ts';
import { applyMigrationsFromDisk } from '../../ops/migrations-from-disk.ts';
import { fullEnvSchema } from '../../lib/config/schema.ts';
import { DEMO, seedDemo } from './seed.ts';
import { seedDemoPassword } from './seed-password.ts';
import { displayPath, ensureDataDir, resolveDataDir } from './data-dir.ts';
import { openDatabase } from './database.ts';
import { withPgClient } from './pg-session.ts';
import { createTeardown } from '../stack/teardown.ts';

const USAGE = `Usage: npm run seed [-- --json]

Applies the migrations, then creates the demo tenant if it is missing (fixed ids; safe to repeat).
With APP_ENV=dev (the default) it also sets the demo admin's sign-in password, unless the stored one is it already.
Database: $DATABASE_URL, else the embedded PostgreSQL in <data>/pg (started for the run, or reused if running).
Token secret and password: $AUTH_JWT_SECRET and $DEMO_ADMIN_PASSWORD, else those in <data>/dev-secrets.json (created if absent).
<data> is $RUNSTATE_DATA_DIR, else .data/ at the repository root.

  --json   print only { "organizationId", "locationId", "admin": { "userId", "email", "token", "password" },
           "tenant": { "slug", "domain" } } on stdout
           ("password" with APP_ENV=dev only; npm prints its own "> runstate seed" header on stdout unless run
           silently: npm run -s seed -- --json)`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help === true) {
    console.log(USAGE);
    return;
  }
  const env = process.env;
  // As the app would read it; the demo password is seeded in dev only.
  const appEnv = fullEnvSchema().shape.APP_ENV.parse(env.APP_ENV || undefined);
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
    const { applied, seed, password } = await withPgClient(database.url, async (client) => {
      const migrated = (await applyMigrationsFromDisk(client)).applied;
      const tenant = await seedDemo(client, secrets.values.AUTH_JWT_SECRET, tokenOptions);
      const seeded = await seedDemoPassword(client, { userId: tenant.admin.userId, password: secrets.values.DEMO_ADMIN_PASSWORD, appEnv });
      return { applied: migrated, seed: tenant, password: seeded };
    });
    log(`database: ${database.description}`);
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
    if (password.seeded && password.changed) log("set the demo admin's sign-in password (DEMO_ADMIN_PASSWORD)");
    if (!password.seeded) log(`APP_ENV=${password.appEnv}: no sign-in password seeded (the demo password is for APP_ENV=dev only)`);
    // The password goes with the token it stands beside: both are the demo admin's, and in dev only.
    if (password.seeded) seed.admin.password = secrets.values.DEMO_ADMIN_PASSWORD;
    const passwordFrom = secrets.fromEnv.includes('DEMO_ADMIN_PASSWORD') ? 'the environment' : displayPath(secrets.file);
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
        ...(seed.admin.password !== undefined
          ? [
              `admin password  ${seed.admin.password}`,
              `(the dev demo password, DEMO_ADMIN_PASSWORD from ${passwordFrom}; POST /auth/login)`,
            ]
          : []),
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

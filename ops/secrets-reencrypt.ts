// `npm run secrets:reencrypt`: moves every sealed secret in DATABASE_URL (the Syrve passwords, the users' TOTP
// secrets, the signing keys, the webhook endpoints' current and previous secrets) to the first key of SECRETS_KEYS.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { parseSecretsKeys } from '../lib/config/secrets-keys.ts';
import type { SecretKey } from '../lib/config/secrets-keys.ts';
import { reencryptSecrets, SEALED_COLUMNS } from './reencrypt.ts';
import type { ReencryptProgress } from './reencrypt.ts';

const NAME = 'secrets:reencrypt';
const USAGE = `usage: DATABASE_URL=… SECRETS_KEYS=new:…,old:… npm run ${NAME} -- [--batch-size N] [--dry-run]`;

// Exit codes (ops/README.md): 0 every row is on the newest key; 1 the run could not start or broke off;
// 2 it finished but rows remain on an older key (listed above the summary).
function fail(message: string): never {
  console.error(`${NAME}: ${message}`);
  process.exit(1);
}

function options(): { batchSize: number; dryRun: boolean } {
  let values;
  try {
    ({ values } = parseArgs({
      options: { 'batch-size': { type: 'string' }, 'dry-run': { type: 'boolean' } },
      allowPositionals: false,
    }));
  } catch {
    // parseArgs' message echoes the argument, which might be a key someone pasted: say only how to call it.
    fail(`unexpected arguments (secrets go in the environment, never in arguments)\n${USAGE}`);
  }
  const batchSize = Number(values['batch-size'] ?? 100);
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000) fail(`--batch-size must be 1–10000\n${USAGE}`);
  return { batchSize, dryRun: values['dry-run'] === true };
}

function keysFromEnv(): SecretKey[] {
  const value = process.env.SECRETS_KEYS;
  if (value === undefined || value === '') fail(`set SECRETS_KEYS (newest key first)\n${USAGE}`);
  try {
    return parseSecretsKeys(value);
  } catch (error) {
    // parseSecretsKeys names entries and key ids, never key bytes.
    fail(`SECRETS_KEYS: ${(error as Error).message}`);
  }
}

/** Lines are prefixed with the column (`Syrve passwords`, `TOTP secrets`); a row is named by its id only. */
const printer =
  (label: string) =>
  (progress: ReencryptProgress): void => {
    const prefix = `${NAME}: ${label}:`;
    if (progress.kind === 'start') {
      const keys = Object.entries(progress.byKeyId).map(([kid, n]) => `${kid}: ${n}`);
      console.log(
        `${prefix} ${progress.total} rows to move to key ${progress.newestKeyId}${keys.length > 0 ? ` (${keys.join(', ')})` : ''}`,
      );
    } else if (progress.kind === 'failed') {
      console.log(`${prefix} row ${progress.id} failed: ${progress.reason}`);
    } else {
      const { batch, moved, total, skipped, failed } = progress;
      console.log(`${prefix} batch ${batch}: ${moved}/${total} moved, ${skipped} skipped, ${failed} failed`);
    }
  };

const { batchSize, dryRun } = options();
const keys = keysFromEnv();
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl === undefined || databaseUrl === '') fail(`set DATABASE_URL to the postgres:// URL of the database\n${USAGE}`);

// The first signal finishes the batch in hand and stops; a second one kills as usual (also safe).
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${NAME}: ${signal}: stopping after this batch; run again to continue`);
    stop.abort();
  });
}

const client = new pg.Client({ connectionString: databaseUrl });
try {
  await client.connect();
  for (const column of SEALED_COLUMNS) {
    if (stop.signal.aborted) break;
    const result = await reencryptSecrets(
      client,
      keys,
      { batchSize, dryRun, onProgress: printer(column.label), signal: stop.signal },
      column,
    );
    if (dryRun) continue;
    console.log(
      `${NAME}: ${column.label}: done: ${result.moved} moved, ${result.skipped} skipped, ${result.failed.length} failed; ` +
        `${result.remaining} rows on an older key${result.stopped ? ' (stopped early)' : ''}`,
    );
    if (result.remaining > 0) {
      console.log(`${NAME}: ${column.label}: run again for rows skipped or not reached; ${column.whenFailed}`);
      process.exitCode = 2;
    }
  }
  if (dryRun) console.log(`${NAME}: dry run, nothing changed`);
  // Stopped before a column was reached: its rows were not even counted, so the older keys must stay.
  else if (stop.signal.aborted && process.exitCode === undefined) process.exitCode = 2;
} catch (error) {
  // pg's messages do not include the connection string; SecretBoxError's never include key material.
  console.error(`${NAME}: failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => undefined);
}

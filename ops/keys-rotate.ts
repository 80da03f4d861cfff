// `npm run keys:rotate`: rotates the stored access-token signing keys in DATABASE_URL (next → current, current →
// previous, a fresh next; the first run makes a current and a next), sealed with the first key of SECRETS_KEYS.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { fullEnvSchema } from '../lib/config/schema.ts';
import { ACCESS_TOKEN_MAX_LIFETIME_SECONDS } from '../lib/config/index.ts';
import { parseSecretsKeys } from '../lib/config/secrets-keys.ts';
import { rotationMinIntervalMs } from '../lib/auth/signing-keys/key-ring.ts';
import { rotateSigningKeys } from '../lib/auth/signing-keys/rotate-signing-keys.ts';
import { pgClientDb } from './pg-client-db.ts';

const NAME = 'keys:rotate';
const USAGE = `usage: DATABASE_URL=… SECRETS_KEYS=… [ACCESS_TOKEN_SIGNING=ES256|EdDSA] [ACCESS_TOKEN_MAX_LIFETIME_SECONDS=…] npm run ${NAME}`;

// Exit codes (ops/README.md): 0 rotated (or the first keys made); 1 it could not run; 2 too soon, nothing changed.
function fail(message: string): never {
  console.error(`${NAME}: ${message}`);
  process.exit(1);
}

try {
  parseArgs({ options: {}, allowPositionals: false });
} catch {
  // parseArgs' message echoes the argument, which might be a key someone pasted: say only how to call it.
  fail(`unexpected arguments (settings and secrets go in the environment, never in arguments)\n${USAGE}`);
}

const settings = fullEnvSchema()
  .pick({ DATABASE_URL: true, SECRETS_KEYS: true, ACCESS_TOKEN_SIGNING: true, ACCESS_TOKEN_MAX_LIFETIME_SECONDS: true })
  .safeParse(Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== '')));
if (!settings.success) fail(`${settings.error.issues.map((issue) => issue.path.join('.')).join(', ')}: missing or invalid\n${USAGE}`);
const { DATABASE_URL, SECRETS_KEYS, ACCESS_TOKEN_SIGNING, ACCESS_TOKEN_MAX_LIFETIME_SECONDS: maxLifetime } = settings.data;
if (SECRETS_KEYS === undefined) fail(`set SECRETS_KEYS (the first key seals the new private key)\n${USAGE}`);
if (ACCESS_TOKEN_SIGNING === 'HS256') fail('ACCESS_TOKEN_SIGNING=HS256 has no keys to rotate (its secret is AUTH_JWT_SECRET)');
let secretsKeys;
try {
  secretsKeys = parseSecretsKeys(SECRETS_KEYS);
} catch (error) {
  // parseSecretsKeys names entries and key ids, never key bytes.
  fail(`SECRETS_KEYS: ${(error as Error).message}`);
}

const client = new pg.Client({ connectionString: DATABASE_URL });
try {
  await client.connect();
  const correlationId = `ops-keys-rotate-${uuidv7()}`;
  const outcome = await rotateSigningKeys(
    { db: pgClientDb(client), secretsKeys },
    {
      alg: ACCESS_TOKEN_SIGNING ?? 'ES256',
      nowMs: Date.now(),
      minIntervalMs: rotationMinIntervalMs(maxLifetime ?? ACCESS_TOKEN_MAX_LIFETIME_SECONDS),
      correlationId,
    },
  );
  if (outcome.ok) {
    const what = outcome.created ? 'made the first keys' : 'rotated';
    console.log(
      `${NAME}: ${what}: current ${outcome.currentKid}, next ${outcome.nextKid}, previous ${outcome.previousKid ?? '-'}` +
        `${outcome.retiredKid !== null ? `, deleted ${outcome.retiredKid}` : ''} (audit correlation ${correlationId})`,
    );
  } else if (outcome.reason === 'too-soon') {
    console.log(
      `${NAME}: too soon, nothing changed: the current key's tokens may still be alive; run again after ${new Date(outcome.allowedAtMs).toISOString()}`,
    );
    process.exitCode = 2;
  } else {
    console.error(`${NAME}: another rotation committed first; nothing of this one was written (run again to see the state)`);
    process.exitCode = 1;
  }
} catch (error) {
  // pg's messages do not include the connection string; SecretBoxError's never include key material.
  console.error(`${NAME}: failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => undefined);
}

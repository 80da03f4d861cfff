// What `npm run dev:worker` hands wrangler dev: composed from stack.json and the dev secrets, written 0600, never echoed.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { devWorkerVars, devWorkerVarsFile, writeDevWorkerVars } from '../../local/launcher/dev-worker-vars.ts';
import { stackFile, writeStackFile } from '../../local/launcher/stack-file.ts';
import { DEMO_TOKEN_TTL_SECONDS } from '../../local/launcher/seed.ts';
import { createTeardown } from '../../local/stack/teardown.ts';

const STORES = {
  redis: { url: 'http://127.0.0.1:41001', token: 'proxy-token-0123456789', description: '' },
  databaseUrl: 'postgres://postgres:pg-password@127.0.0.1:41002/runstate',
  neonLocalProxyUrl: 'http://127.0.0.1:41003',
};
const operatorSecret = `rsop_${'b'.repeat(43)}`;
const SECRETS = {
  AUTH_JWT_SECRET: 'dev-hs256-secret-0123456789abcdef0123',
  INDEX_HASH_KEY: 'dev-index-hash-key-0123456789abcdef0123',
  SECRETS_KEYS: 'dev:c2VjcmV0LWJveC1rZXktb2YtMzItYnl0ZXMtZGV2ISE=',
  WEBHOOK_SECRET: 'whsec_ZGV2LXdlYmhvb2stc2VjcmV0LTI0Yg==',
  SYRVE_DEMO_PASSWORD: 'demo-password-launcher-only',
  DEMO_ADMIN_PASSWORD: 'demo-admin-password-launcher-only',
};

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'runstate-vars-'));
  await writeFile(join(dataDir, 'dev-secrets.json'), JSON.stringify(SECRETS), { mode: 0o600 });
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('devWorkerVars', () => {
  it("is npm start's stores and the app's dev secrets (not the launcher's demo passwords), over APP_ENV=dev and this environment's config variables", async () => {
    const teardown = createTeardown();
    await writeStackFile(dataDir, STORES, teardown);
    expect((await stat(stackFile(dataDir))).mode & 0o777).toBe(0o600);

    await writeFile(join(dataDir, 'operator-token'), `${operatorSecret}\n`, { mode: 0o600 });
    const vars = await devWorkerVars(dataDir, {
      KEY_PREFIX: 'demo',
      PORT: '9999',
      HOME: '/root',
      INDEX_HASH_KEY: 'from-env-0123456789abcdef0123456789',
    });
    expect(vars).toEqual({
      APP_ENV: 'dev',
      ACCESS_TOKEN_MAX_LIFETIME_SECONDS: String(DEMO_TOKEN_TTL_SECONDS),
      // The dev operator npm start made in this data folder: its digest, never the secret.
      OPERATOR_TOKEN_HASHES: `dev:${createHash('sha256').update(operatorSecret).digest('hex')}`,
      KEY_PREFIX: 'demo',
      UPSTASH_REDIS_REST_URL: STORES.redis.url,
      UPSTASH_REDIS_REST_TOKEN: STORES.redis.token,
      DATABASE_URL: STORES.databaseUrl,
      NEON_LOCAL_PROXY_URL: STORES.neonLocalProxyUrl,
      AUTH_JWT_SECRET: SECRETS.AUTH_JWT_SECRET,
      INDEX_HASH_KEY: 'from-env-0123456789abcdef0123456789',
      SECRETS_KEYS: SECRETS.SECRETS_KEYS,
      WEBHOOK_SECRET: SECRETS.WEBHOOK_SECRET,
    });

    expect(Object.values(vars)).not.toContain(operatorSecret);
    // Operators configured in the environment bring their own secrets: theirs, not the dev one.
    const configured = await devWorkerVars(dataDir, { OPERATOR_TOKEN_HASHES: `alice:${'a'.repeat(64)}` });
    expect(configured.OPERATOR_TOKEN_HASHES).toBe(`alice:${'a'.repeat(64)}`);

    // Stopping npm start removes the file: nothing to point a worker at any more.
    await teardown.run();
    await expect(devWorkerVars(dataDir, {})).rejects.toThrow(/no npm start is running on .*: start it first/);
  });

  it('refuses a stack.json whose launcher is gone, naming its pid and nothing from the file', async () => {
    await writeFile(
      stackFile(dataDir),
      JSON.stringify({ pid: 2 ** 22 + 1, stores: { ...toStores(), UPSTASH_REDIS_REST_TOKEN: 'stale-token' } }),
    );
    const error = await devWorkerVars(dataDir, {}).catch((caught: unknown) => caught as Error);
    expect(error.message).toMatch(/\(pid 4194305\) is gone: start it again/);
    expect(error.message).not.toContain('stale-token');
  });
});

describe('writeDevWorkerVars', () => {
  it('writes a dotenv file, 0600 even over an older readable one, each value quoted literally', async () => {
    const file = devWorkerVarsFile(dataDir);
    await writeFile(file, 'OLD=1\n', { mode: 0o644 });
    await writeDevWorkerVars(file, { APP_ENV: 'dev', SECRETS_KEYS: 'dev:a+b/c=', DATABASE_URL: 'postgres://u:p#1@h/db' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).split('\n').slice(1)).toEqual([
      "APP_ENV='dev'",
      "SECRETS_KEYS='dev:a+b/c='",
      "DATABASE_URL='postgres://u:p#1@h/db'",
      '',
    ]);
  });

  it('refuses a value a dotenv file cannot carry, naming the variable and never the value', async () => {
    const error = await writeDevWorkerVars(devWorkerVarsFile(dataDir), { DATABASE_URL: "postgres://u:it's-secret@h/db" }).then(
      () => new Error('written'),
      (caught: unknown) => caught as Error,
    );
    expect(error.message).toMatch(/^DATABASE_URL holds a quote/);
    expect(error.message).not.toContain('secret@');
  });
});

function toStores(): Record<string, string> {
  return { UPSTASH_REDIS_REST_URL: STORES.redis.url, UPSTASH_REDIS_REST_TOKEN: STORES.redis.token, DATABASE_URL: STORES.databaseUrl };
}

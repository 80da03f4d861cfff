// `npm run cron -- --once` with no store in its environment: it finds the running npm start through the stack file the
// launcher writes (<data>/stack.json) and its dev secrets, says which stack it uses, and runs in that stack's key
// namespace; with no stack running it says how to give one, and runs nothing.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyspace } from '../../lib/keys/index.ts';
import { stackFile, writeStackFile } from '../../local/launcher/stack-file.ts';
import { createTeardown, type Teardown } from '../../local/stack/teardown.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { cronOnce } from '../support/cron-once.ts';

// Prefixes of their own: the run lock is platform-wide, and other files on this Redis run the scheduled function too.
// The stack file names the second; the test stack's own is the first, so a run in the wrong namespace shows.
const STACK_PREFIX = 'cronlocal';
const FILE_PREFIX = 'cronlocalfile';

let stack: TestStack;
let dataDir: string;
let launcher: Teardown;

beforeAll(async () => {
  stack = await startStack({ env: { KEY_PREFIX: STACK_PREFIX } });
  dataDir = await mkdtemp(join(tmpdir(), 'cron-local-'));
  const env: Record<string, string> = stack.env;
  // What npm start leaves in its data folder: the dev secrets it generated and the stack file (this process stands in
  // for the launcher: the file names its pid, which is alive).
  await writeFile(
    join(dataDir, 'dev-secrets.json'),
    JSON.stringify({
      AUTH_JWT_SECRET: env.AUTH_JWT_SECRET,
      INDEX_HASH_KEY: env.INDEX_HASH_KEY,
      SECRETS_KEYS: env.SECRETS_KEYS,
      WEBHOOK_SECRET: env.WEBHOOK_SECRET,
    }),
    { mode: 0o600 },
  );
  launcher = createTeardown();
  await writeStackFile(
    dataDir,
    {
      redis: { url: env.UPSTASH_REDIS_REST_URL!, token: env.UPSTASH_REDIS_REST_TOKEN!, description: '' },
      databaseUrl: env.DATABASE_URL!,
      neonLocalProxyUrl: env.NEON_LOCAL_PROXY_URL,
      // npm start's default APP_ENV, under which the launcher's own passkey settings are not required.
      namespace: { APP_ENV: 'dev', KEY_PREFIX: FILE_PREFIX },
    },
    launcher,
  );
});
afterAll(async () => {
  await launcher?.run();
  await stack?.close();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

describe('npm run cron without the app’s variables', () => {
  it('runs against the npm start of its data folder, says so, and works in that stack’s key namespace', async () => {
    const state = createKeyspace({ prefix: FILE_PREFIX, env: 'dev' }).denylistState();
    expect(await stack.redis.exists(state)).toBe(0);
    const result = await cronOnce({ RUNSTATE_DATA_DIR: dataDir });
    expect(result.stderr).toContain(
      `cron: no UPSTASH_REDIS_REST_URL or DATABASE_URL set: using the npm start running on ${dataDir} (pid ${process.pid})`,
    );
    expect(result.stderr).toMatch(/cron: \d+ tasks ran, 0 failed/);
    expect(result.code).toBe(0);
    // The denylist repair marked the file's namespace whole: the run used its keys.
    expect(await stack.redis.exists(state)).toBe(1);
    const env: Record<string, string> = stack.env;
    for (const secret of [env.UPSTASH_REDIS_REST_TOKEN!, env.AUTH_JWT_SECRET!, env.SECRETS_KEYS!]) {
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
  });

  it('with no npm start on the folder, says how to give one and runs nothing (exit 1)', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'cron-none-'));
    try {
      const result = await cronOnce({ RUNSTATE_DATA_DIR: empty });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`cron: no npm start is running on ${empty}: start it first`);
      expect(result.stderr).toContain("or set the app's variables in the environment");
      expect(result.stdout).toBe('');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('with a stack file whose launcher is gone, names its pid and nothing from the file (exit 1)', async () => {
    const stale = await mkdtemp(join(tmpdir(), 'cron-stale-'));
    try {
      const token = 'stale-proxy-token-0123456789';
      const stores = {
        UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1',
        UPSTASH_REDIS_REST_TOKEN: token,
        DATABASE_URL: 'postgres://127.0.0.1:1/x',
      };
      await writeFile(stackFile(stale), JSON.stringify({ pid: 2 ** 22 + 1, stores }), { mode: 0o600 });
      const result = await cronOnce({ RUNSTATE_DATA_DIR: stale });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('(pid 4194305) is gone: start it again');
      expect(result.stdout + result.stderr).not.toContain(token);
    } finally {
      await rm(stale, { recursive: true, force: true });
    }
  });
});

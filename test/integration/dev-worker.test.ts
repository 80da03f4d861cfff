// `npm run dev:worker` end to end: npm start on a data folder, then the worker under `wrangler dev` against its stores,
// given everything through a 0600 file in that folder, never through argv or the terminal.
import { createHash } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../local/processes/free-port.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { REPO_ROOT } from '../../local/launcher/data-dir.ts';
import { devWorkerVarsFile } from '../../local/launcher/dev-worker-vars.ts';
import { stackFile } from '../../local/launcher/stack-file.ts';
import { DEMO, DEMO_OIDC_PROVIDER_ID, DEMO_TOKEN_TTL_SECONDS } from '../../local/launcher/seed.ts';
import { baseEnv, call, launch, printed, stagingRoot, stop, stopAll, whenReady, type Launched } from '../support/launcher-process.ts';
import { quietPort } from '../support/quiet-port.ts';

const running: Launched[] = [];
const workers: ChildProcess[] = [];
const dataDirs: string[] = [];
// A database of its own: the launcher tests seed the same demo organisation with other dev secrets (its password, the
// Syrve connection's sealed credentials), and would overwrite this file's seed if they ran beside it on `test`.
let database: ScratchDatabase;

beforeAll(async () => {
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
});

afterAll(async () => {
  await database.drop();
});

afterEach(async () => {
  for (const worker of workers.splice(0)) {
    if (worker.exitCode === null && worker.signalCode === null) {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('exit', resolve));
    }
  }
  const staged = running.map((launched) => stagingRoot(launched.output()));
  await stopAll(running);
  for (const dir of [...dataDirs.splice(0), ...staged]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runstate-dev-worker-'));
  chmodSync(dir, 0o711);
  dataDirs.push(dir);
  return dir;
}

function startDevWorker(env: NodeJS.ProcessEnv, args: string[]): { child: ChildProcess; output: () => string } {
  // As package.json runs it: one process with tsx's loader, so a signal reaches the script itself.
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/launcher/dev-worker.ts', ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workers.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function until(check: () => boolean, what: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('npm run dev:worker', () => {
  it('refuses, printing nothing secret, when no npm start runs on the data folder', async () => {
    const dataDir = newDataDir();
    const worker = startDevWorker(baseEnv({ RUNSTATE_DATA_DIR: dataDir }), []);
    const code = await new Promise((resolve) => worker.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(worker.output()).toMatch(/no npm start is running on .*: start it first/);
    expect(existsSync(devWorkerVarsFile(dataDir))).toBe(false);
  });

  it("runs the worker in workerd against npm start's stores, with its secrets from a 0600 file and none printed", async () => {
    const dataDir = newDataDir();
    const env = baseEnv({
      REDIS_URL: inject('redisUrl'),
      DATABASE_URL: database.url,
      // Keys of its own on the shared Redis: the launcher tests run the same demo Syrve connection (same id, another
      // fake upstream), and its cached upstream session must not be this stack's.
      KEY_PREFIX: 'dev-worker-test',
      PORT: String(await freePort()),
      RUNSTATE_DATA_DIR: dataDir,
    });
    const launcher = launch(env, running);
    const banner = await whenReady(launcher);
    expect(statSync(stackFile(dataDir)).mode & 0o777).toBe(0o600);
    const stack = JSON.parse(readFileSync(stackFile(dataDir), 'utf8')) as { stores: Record<string, string> };

    const port = await quietPort();
    const startedAt = Date.now();
    const worker = startDevWorker({ ...env, PORT: '' }, ['--port', String(port)]);
    await until(
      () => worker.output().includes(`Ready on http://127.0.0.1:${port}`),
      () => worker.output(),
      60_000,
    );
    console.log(`wrangler dev ready after ${Date.now() - startedAt} ms`);

    // The file wrangler read: 0600, holding the stack's stores and the dev secrets, APP_ENV=dev over wrangler.toml's prod.
    const varsFile = devWorkerVarsFile(dataDir);
    expect(statSync(varsFile).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')) as Record<string, string>;
    const vars = Object.fromEntries(
      [...readFileSync(varsFile, 'utf8').matchAll(/^([A-Z_]+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!] as const),
    );
    const { SYRVE_DEMO_PASSWORD: demoPassword, DEMO_ADMIN_PASSWORD: adminPassword, ...appSecrets } = secrets;
    const operatorSecret = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim();
    expect(vars).toEqual({
      APP_ENV: 'dev',
      ACCESS_TOKEN_MAX_LIFETIME_SECONDS: String(DEMO_TOKEN_TTL_SECONDS),
      // npm start's dev operator, by its digest only.
      OPERATOR_TOKEN_HASHES: `dev:${createHash('sha256').update(operatorSecret).digest('hex')}`,
      // The key namespace npm start ran with: the worker reads and writes the same keys as the app.
      KEY_PREFIX: 'dev-worker-test',
      ...stack.stores,
      ...appSecrets,
    });

    // The worker answers on loopback, reaching Redis and PostgreSQL through npm start's proxies, and takes its tokens.
    const base = `http://127.0.0.1:${port}`;
    expect(await call('GET', `${base}/healthz`, '')).toEqual({
      status: 200,
      json: { status: 'ok', redis: 'ok', revocation: 'ok', postgres: 'ok', eviction: { redis: 'noeviction', revocation: 'noeviction' } },
    });
    const org = printed(banner, 'ORG');
    const adminToken = printed(banner, 'ADMIN_TOKEN');
    const listed = await call('GET', `${base}/orgs/${org}/invites`, adminToken);
    expect(listed.status).toBe(200);
    // The operator routes take npm start's dev operator secret here too.
    const limits = await call('GET', `${base}/ops/tenants/${printed(banner, 'ORG')}/rate-limit`, operatorSecret);
    expect(limits.status).toBe(200);

    // As docs/deploy.md says of the banner's lines on this port: sign-in and the Syrve connection work as on npm start;
    // what the Node server alone has (the mailbox folder, the link bases, the demo identity provider) is missing here.
    const post = async (path: string, body: unknown, token?: string) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, json: (await response.json()) as unknown };
    };
    const signedIn = await post('/auth/login', { organizationId: org, email: DEMO.adminEmail, password: adminPassword });
    expect(signedIn).toMatchObject({ status: 200, json: { status: 'signed-in' } });
    const connection = printed(banner, 'CONNECTION');
    expect(await post(`/orgs/${org}/syrve/connections/${connection}/test`, undefined, adminToken)).toMatchObject({
      status: 200,
      json: { test: 'ok' },
    });
    const notConfigured = { status: 503, json: { error: { code: 'NOT_CONFIGURED' } } };
    expect(await post('/auth/password-reset', { organizationId: org, email: DEMO.adminEmail })).toMatchObject(notConfigured);
    expect(
      await post(`/orgs/${org}/invites`, { email: 'someone@example.test', roleCode: 'Viewer', delivery: 'email' }, adminToken),
    ).toMatchObject(notConfigured);
    const oidcStart = await fetch(`${base}/auth/oidc/${DEMO_OIDC_PROVIDER_ID}/start?organizationId=${org}`, { redirect: 'manual' });
    expect(oidcStart.status).toBe(404);

    worker.child.kill('SIGTERM');
    await new Promise((resolve) => worker.child.once('exit', resolve));
    expect(existsSync(varsFile)).toBe(false);
    for (const value of [
      operatorSecret,
      ...Object.values(appSecrets),
      demoPassword!,
      adminPassword!,
      stack.stores.UPSTASH_REDIS_REST_TOKEN!,
      database.url,
    ]) {
      expect(worker.output()).not.toContain(value);
    }

    expect(await stop(launcher)).toBe(0);
    expect(existsSync(stackFile(dataDir))).toBe(false);
  });
});

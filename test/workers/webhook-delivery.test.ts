// Webhook delivery in the deployed worker bundle under workerd: the `standardwebhooks` package signs there (pure JS, no
// Node built-ins), the request's change is sent after the answer through waitUntil, and the scheduled event sends
// what is due; a receiver on loopback verifies each delivery with the same package.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedOrganization } from '../support/fixtures.ts';
import { startLocalServices, type LocalServices } from '../support/local-services.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../local/fakes/index.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { buildWorker, type BuiltWorker } from '../../ops/build-worker.ts';

let outDir: string;
let worker: BuiltWorker;
let redisServer: RedisServerHandle;
let database: ScratchDatabase;
let services: LocalServices;
let receiver: WebhookReceiver;
let db: pg.Client;
let mf: Miniflare;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'runstate-worker-webhooks-'));
  worker = await buildWorker(outDir);
  // Its own Redis and database: the scheduled event sends every due delivery it can see and takes the platform's run lock.
  redisServer = await startRedisServer();
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  services = await startLocalServices({ redisUrl: redisServer.url, databaseUrl: database.url });
  receiver = await startWebhookReceiver();
  db = new pg.Client({ connectionString: services.databaseUrl });
  await db.connect();
  mf = new Miniflare({
    modules: [{ type: 'ESModule', path: worker.scriptPath }, ...worker.textModulePaths.map((path) => ({ type: 'Text' as const, path }))],
    modulesRoot: outDir,
    compatibilityDate: worker.compatibilityDate,
    compatibilityFlags: worker.compatibilityFlags,
    bindings: services.env,
  });
  await mf.ready;
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  await db?.end().catch(() => undefined);
  await receiver?.close();
  await services?.close();
  await redisServer?.stop();
  await database?.drop();
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

async function call(
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await mf.dispatchFetch(`http://runstate.test${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it('signs with the package in workerd: a role change is sent after the answer, and the scheduled event sends a due one', async () => {
  const org = await seedOrganization(db);
  const created = await call('POST', `/orgs/${org.organizationId}/webhook-endpoints`, org.adminToken, {
    url: receiver.url,
    events: ['member.role_changed'],
  });
  expect(created.status).toBe(201);
  receiver.setSecrets([created.body.secret as string]);
  const member = uuidv7();
  await db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member, `worker-hook-${member}@example.test`]);
  await db.query("INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES ($1, $2, $3, 'Viewer')", [
    uuidv7(),
    member,
    org.organizationId,
  ]);

  const changed = await call('PATCH', `/orgs/${org.organizationId}/members/${member}`, org.adminToken, { roleCode: 'Accountant' });
  expect(changed.status).toBe(200);
  await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
  expect(receiver.received[0]).toMatchObject({ verifiedBy: 0, status: 204 });
  expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'member.role_changed', data: { userId: member } });

  // A due delivery nobody sent after an answer (written straight by SQL): the scheduled event sends it.
  await db.query(
    `INSERT INTO audit_events (id, occurred_at, organization_id, target_id, action, correlation_id, details)
     VALUES ($1, now(), $2, $3, 'member.role_changed', 'worker-webhook-test', '{"toRole":"Viewer"}')`,
    [uuidv7(), org.organizationId, member],
  );
  const scheduled = await mf.getWorker();
  expect(await scheduled.scheduled({ cron: '*/5 * * * *' })).toMatchObject({ outcome: 'ok' });
  await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(2);
  expect(receiver.received[1]).toMatchObject({ verifiedBy: 0 });
  const states = await db.query('SELECT state FROM webhook_endpoint_deliveries WHERE organization_id = $1', [org.organizationId]);
  expect(states.rows).toEqual([{ state: 'succeeded' }, { state: 'succeeded' }]);
});

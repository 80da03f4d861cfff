// The breached-password check in the deployed worker bundle under workerd: WebCrypto's SHA-1 and the runtime's fetch
// ask the fake range API on loopback for the prefix alone, a listed password is refused, and the link stays usable.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedOrganization } from '../support/fixtures.ts';
import { startLocalServices, type LocalServices } from '../support/local-services.ts';
import { composeApp } from '../../local/stack/app.ts';
import { startFakeBreachedPasswords, type FakeBreachedPasswords } from '../../local/fakes/index.ts';
import { resetSchema } from '../../lib/auth/password-reset/reset-token.ts';
import { rangeQuery } from '../../lib/auth/breached-password/range-query.ts';
import { singleUse } from '../../lib/runtime/single-use/index.ts';
import { buildWorker, type BuiltWorker } from '../../ops/build-worker.ts';

let outDir: string;
let worker: BuiltWorker;
let services: LocalServices;
let fake: FakeBreachedPasswords;
let db: pg.Client;
let mf: Miniflare;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'runstate-worker-breach-'));
  worker = await buildWorker(outDir);
  services = await startLocalServices();
  fake = await startFakeBreachedPasswords();
  db = new pg.Client({ connectionString: services.databaseUrl });
  await db.connect();
  mf = new Miniflare({
    modules: [{ type: 'ESModule', path: worker.scriptPath }, ...worker.textModulePaths.map((path) => ({ type: 'Text' as const, path }))],
    modulesRoot: outDir,
    compatibilityDate: worker.compatibilityDate,
    compatibilityFlags: worker.compatibilityFlags,
    bindings: { ...services.env, PASSWORD_BREACH_API_URL: fake.url, PASSWORD_BREACH_CHECK: 'fail-closed' },
  });
  await mf.ready;
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  await db?.end().catch(() => undefined);
  await fake?.close();
  await services?.close();
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

async function confirm(token: string, newPassword: string): Promise<{ status: number; text: string }> {
  const response = await mf.dispatchFetch('http://runstate.test/auth/password-reset/confirm', {
    method: 'POST',
    // An address of its own: the run's Redis is shared, and so are its per-address counters.
    headers: {
      'content-type': 'application/json',
      'cf-connecting-ip': `127.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    },
    body: JSON.stringify({ token, newPassword }),
  });
  return { status: response.status, text: await response.text() };
}

it('refuses a listed password after asking for its SHA-1 prefix alone, and the same link then sets another', async () => {
  const org = await seedOrganization(db);
  // Issued from Node on the same stores and keys (APP_ENV, KEY_PREFIX, INDEX_HASH_KEY) the worker reads.
  const { deps } = composeApp(services.env);
  const token = await singleUse.issue(deps, 'password-reset', resetSchema, {
    userId: org.adminId,
    organizationId: org.organizationId,
    credentialEpoch: 0,
    issuedAtUtc: new Date().toISOString(),
    correlationId: 'worker-breached-password-test',
  });

  const refused = await confirm(token, 'password1234');
  expect(refused.status).toBe(400);
  expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'PASSWORD_BREACHED' } });
  const { prefix } = await rangeQuery('password1234');
  expect(fake.requests.map(({ url, addPadding }) => ({ url, addPadding }))).toEqual([{ url: `/range/${prefix}`, addPadding: 'true' }]);

  expect((await confirm(token, `worker-fresh-${uuidv7()}`)).status).toBe(204);
  expect(fake.requests).toHaveLength(2);
});

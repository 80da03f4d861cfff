// The stored signing keys in the deployed worker bundle under workerd: the first keys are made on first use with
// WebCrypto (ES256 and EdDSA), sign-in signs with them under a kid, the worker verifies its own token by kid, and
// /.well-known/jwks.json publishes keys that verify it outside the worker.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { Miniflare } from 'miniflare';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedOrganization, setPassword } from '../support/fixtures.ts';
import { startLocalServices, type LocalServices } from '../support/local-services.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { buildWorker, type BuiltWorker } from '../../ops/build-worker.ts';

const ISSUER = 'https://auth.runstate.test/';
const ALGORITHMS = ['ES256', 'EdDSA'] as const;

let outDir: string;
let worker: BuiltWorker;
const running: Array<{ database: ScratchDatabase; services: LocalServices; db: pg.Client; mf: Miniflare }> = [];

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'runstate-worker-keys-'));
  worker = await buildWorker(outDir);
  // One database per algorithm: the first keys are made with the algorithm of the worker that first needs them.
  for (const alg of ALGORITHMS) {
    const database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
    const services = await startLocalServices({ databaseUrl: database.url });
    const db = new pg.Client({ connectionString: services.databaseUrl });
    await db.connect();
    const mf = new Miniflare({
      modules: [{ type: 'ESModule', path: worker.scriptPath }, ...worker.textModulePaths.map((path) => ({ type: 'Text' as const, path }))],
      modulesRoot: outDir,
      compatibilityDate: worker.compatibilityDate,
      compatibilityFlags: worker.compatibilityFlags,
      bindings: { ...services.env, ACCESS_TOKEN_SIGNING: alg, AUTH_TOKEN_ISSUER: ISSUER },
    });
    await mf.ready;
    running.push({ database, services, db, mf });
  }
}, 180_000);

afterAll(async () => {
  for (const { database, services, db, mf } of running) {
    await mf.dispose();
    await db.end().catch(() => undefined);
    await services.close();
    await database.drop();
  }
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

it.each(ALGORITHMS.map((alg, index) => [alg, index] as const))(
  'signs and verifies %s tokens by kid in workerd, and publishes the keys',
  async (alg, index) => {
    const { db, mf } = running[index]!;
    const call = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
      mf.dispatchFetch(`http://runstate.test${path}`, {
        ...init,
        headers: { 'cf-connecting-ip': `127.8.${index}.${Math.floor(Math.random() * 250)}`, ...init.headers },
      });
    const org = await seedOrganization(db);
    const password = `pw-${uuidv7()}`;
    await setPassword(db, org.adminId, password);
    const login = await call('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organizationId: org.organizationId, email: org.adminEmail, password }),
    });
    expect(login.status).toBe(200);
    const { accessToken } = (await login.json()) as { accessToken: string };
    const header = decodeProtectedHeader(accessToken);
    expect(header.alg).toBe(alg);

    const own = await call(`/orgs/${org.organizationId}/invites`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(own.status).toBe(200);

    const jwksResponse = await call('/.well-known/jwks.json');
    expect(jwksResponse.status).toBe(200);
    expect(jwksResponse.headers.get('cache-control')).toBe('public, max-age=300');
    const jwks = (await jwksResponse.json()) as { keys: Array<Record<string, string>> };
    expect(jwks.keys).toHaveLength(2);
    expect(jwks.keys[0]).toMatchObject({ kid: header.kid, alg, use: 'sig' });
    for (const key of jwks.keys) expect(key).not.toHaveProperty('d');
    const { payload } = await jwtVerify(accessToken, createLocalJWKSet(jwks as never), { issuer: ISSUER, audience: 'runstate' });
    expect(payload.sub).toBe(org.adminId);
  },
);

// The integration harness: a REST proxy and a Neon proxy in this process (so tests can break them), the real app, and inspectors.
import { inject } from 'vitest';
import pg from 'pg';
import { Redis as IORedis } from 'ioredis';
import { createApp } from '../../functions/app.ts';
import { loadConfig, type Config } from '../../lib/config/index.ts';
import { createDeps } from '../../lib/create-deps.ts';
import type { Deps } from '../../lib/deps.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { startLocalServices } from './local-services.ts';
import { mintToken, type TokenClaims } from './tokens.ts';
import { TEST_JWT_SECRET, seedOrganization as seedOrganizationInto } from './fixtures.ts';

export { newInvitee } from './fixtures.ts';

export interface StackOptions {
  redisUrl?: string;
  inviteTtlSeconds?: number;
  /** Put the denylist behind a proxy of its own, so faults on the main store's proxy leave auth working. */
  separateRevocationProxy?: boolean;
  env?: Record<string, string>;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export type TestStack = Awaited<ReturnType<typeof startStack>>;

export async function startStack(options: StackOptions = {}) {
  const redisUrl = options.redisUrl ?? inject('redisUrl');
  const services = await startLocalServices({
    redisUrl,
    ...(options.separateRevocationProxy === true ? { separateRevocationProxy: true } : {}),
  });
  const { redisProxy, neonProxy, databaseUrl } = services;
  const logs: string[] = [];
  const config: Config = loadConfig({
    ...services.env,
    ...(options.inviteTtlSeconds !== undefined ? { INVITE_TTL_SECONDS: String(options.inviteTtlSeconds) } : {}),
    ...options.env,
  });
  const deps: Deps = createDeps(config, { logger: createJsonLogger((line) => logs.push(line)) });
  const app = createApp(() => deps);
  // Inspectors talk to the servers directly, to check what the app really left behind.
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const redis = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  // Fault tests stop the server under this inspector; its reconnect errors are expected, not news.
  redis.on('error', () => undefined);
  await redis.connect();

  async function request(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    return app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
  }

  const token = (claims: TokenClaims) => mintToken(TEST_JWT_SECRET, claims);

  /** A new organisation with one location and an OrganizationAdmin, written as fixtures straight into PostgreSQL. */
  async function seedOrganization() {
    return seedOrganizationInto(db, TEST_JWT_SECRET);
  }

  async function close(): Promise<void> {
    await redis.quit().catch(() => undefined);
    await db.end().catch(() => undefined);
    await services.close();
  }

  return { app, config, deps, logs, redisProxy, neonProxy, db, redis, request, token, seedOrganization, close };
}

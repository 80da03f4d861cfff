// The bench stack: Redis, a scratch PostgreSQL database, two REST proxies and the Neon proxy in-process, and the real app.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis as IORedis } from 'ioredis';
import { createApp } from '../functions/app.ts';
import { loadConfig } from '../lib/config/index.ts';
import { createDeps } from '../lib/create-deps.ts';
import { createJsonLogger } from '../lib/log/logger.ts';
import { startRedisRestProxy } from '../local/emulators/upstash/index.ts';
import { startNeonProxy } from '../local/emulators/neon/index.ts';
import { startRedisServer } from '../local/processes/redis-server.ts';
import { mintToken, type TokenClaims } from '../test/support/tokens.ts';
import { seedOrganization as seedOrganizationInto } from '../test/support/fixtures.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL } from '../local/processes/scratch-database.ts';
import type { Teardown } from './teardown.ts';

const BENCH_JWT_SECRET = 'bench-only-hs256-secret-0123456789abcdef';
const BENCH_INDEX_HASH_KEY = 'bench-only-index-hash-key-0123456789abcdef';

/** Round trips counted at the proxies: main store, revocation store, PostgreSQL (HTTP /sql + WebSocket connections). */
export interface RoundTrips {
  redis: number;
  revocation: number;
  pg: number;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
}

export type BenchStack = Awaited<ReturnType<typeof startBenchStack>>;

/**
 * Starts everything, registering each clean-up step on `teardown` as soon as its part is up, so an error or a
 * signal at any point can still stop the servers and drop the scratch database.
 */
export async function startBenchStack(teardown: Teardown, env: Record<string, string | undefined> = process.env) {
  // A prefix of our own, so keys written into a shared REDIS_URL can be found and removed afterwards.
  const keyPrefix = `bench-${randomBytes(4).toString('hex')}`;
  let redisUrl = env.REDIS_URL;
  if (redisUrl === undefined || redisUrl === '') {
    const server = await startRedisServer();
    teardown.add(() => server.stop());
    redisUrl = server.url;
  } else {
    const sharedRedis = redisUrl;
    teardown.add(() => deleteKeysWithPrefix(sharedRedis, keyPrefix));
  }

  const database = await createScratchDatabase(env.DATABASE_URL || DEFAULT_DATABASE_URL, 'bench');
  teardown.add(() => database.drop());

  const redisProxy = await startRedisRestProxy({ redisUrl });
  teardown.add(() => redisProxy.close());
  // The denylist gets its own proxy in front of the same Redis, so the main count is the operation alone.
  const revocationProxy = await startRedisRestProxy({ redisUrl });
  teardown.add(() => revocationProxy.close());
  const neonProxy = await startNeonProxy({ databaseUrl: database.url });
  teardown.add(() => neonProxy.close());

  const config = loadConfig({
    APP_ENV: 'test',
    KEY_PREFIX: keyPrefix,
    UPSTASH_REDIS_REST_URL: redisProxy.url,
    UPSTASH_REDIS_REST_TOKEN: redisProxy.token,
    REVOCATION_REDIS_REST_URL: revocationProxy.url,
    REVOCATION_REDIS_REST_TOKEN: revocationProxy.token,
    DATABASE_URL: database.url,
    NEON_LOCAL_PROXY_URL: neonProxy.url,
    AUTH_JWT_SECRET: BENCH_JWT_SECRET,
    INDEX_HASH_KEY: BENCH_INDEX_HASH_KEY,
  });
  // The app's logs would interleave with the report; the bench checks every response status instead.
  const deps = createDeps(config, { logger: createJsonLogger(() => undefined) });
  const app = createApp(() => deps);

  // Fixtures go straight into PostgreSQL, outside the proxies, so they never show up in a count.
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  teardown.add(() => db.end());

  const counters = {
    reset(): void {
      redisProxy.stats.reset();
      revocationProxy.stats.reset();
      neonProxy.stats.reset();
    },
    read(): RoundTrips {
      return {
        redis: redisProxy.stats.requests,
        revocation: revocationProxy.stats.requests,
        pg: neonProxy.stats.httpRequests + neonProxy.stats.wsConnections,
      };
    },
  };

  function request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (options.body === undefined) return Promise.resolve(app.request(path, { method, headers }));
    headers['content-type'] = 'application/json';
    return Promise.resolve(app.request(path, { method, headers, body: JSON.stringify(options.body) }));
  }

  const token = (claims: TokenClaims) => mintToken(BENCH_JWT_SECRET, claims);

  /** A new organisation with one location and an OrganizationAdmin; the token outlives a full run. */
  const seedOrganization = () => seedOrganizationInto(db, BENCH_JWT_SECRET, { name: 'Bench org', tokenTtlSeconds: 3_600 });

  return { app, config, deps, db, counters, request, token, seedOrganization };
}

async function deleteKeysWithPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit().catch(() => undefined);
  }
}

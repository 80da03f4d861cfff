// The bench stack: Redis, a scratch PostgreSQL database, the local stack with a second proxy for the denylist, the fake Syrve upstream, and the real app.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis as IORedis } from 'ioredis';
import { systemClock } from '../lib/deps.ts';
import { createJsonLogger } from '../lib/log/logger.ts';
import { createBudget } from '../lib/runtime/cron-task/budget.ts';
import { denylistRepairTask } from '../lib/runtime/revocation/index.ts';
import { startFakeSyrve } from '../local/fakes/index.ts';
import { startRedisServer } from '../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL } from '../local/processes/scratch-database.ts';
import { composeApp } from '../local/stack/app.ts';
import { seedOrganization as seedOrganizationInto } from '../local/stack/fixtures.ts';
import { startServices } from '../local/stack/services.ts';
import type { Teardown } from '../local/stack/teardown.ts';
import { mintToken, type TokenClaims } from '../local/stack/tokens.ts';

const BENCH_JWT_SECRET = 'bench-only-hs256-secret-0123456789abcdef';
const BENCH_INDEX_HASH_KEY = 'bench-only-index-hash-key-0123456789abcdef';

/**
 * Counted at the proxies: round trips to the main store, the revocation store and PostgreSQL (HTTP /sql + WebSocket
 * connections); the commands inside the Redis ones (each pipeline or transaction entry one, a script call one) and the
 * statements inside the /sql ones; and logins at the fake upstream.
 */
export interface RoundTrips {
  redis: number;
  revocation: number;
  pg: number;
  redisCommands: number;
  revocationCommands: number;
  pgStatements: number;
  upstreamLogins: number;
}

export type BenchStack = Awaited<ReturnType<typeof startBenchStack>>;

/** Every bench token lives this long, so one run never outlives its tokens. */
export const BENCH_TOKEN_TTL_SECONDS = 3_600;

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
    teardown.add('redis-server', server.stop);
    redisUrl = server.url;
  } else {
    const sharedRedis = redisUrl;
    teardown.add('bench keys', () => deleteKeysWithPrefix(sharedRedis, keyPrefix));
  }

  const database = await createScratchDatabase(env.DATABASE_URL || DEFAULT_DATABASE_URL, 'bench');
  teardown.add('scratch database', database.drop);

  // The denylist gets its own proxy in front of the same Redis, so the main count is the operation alone.
  const services = await startServices({ redisUrl, databaseUrl: database.url, separateRevocationProxy: true }, teardown);
  const { redisProxy, neonProxy } = services;
  const revocationProxy = services.revocationProxy ?? redisProxy;

  // The Syrve/iiko RMS server the connections point at, on loopback in this process (its logins are counted).
  const syrveUpstream = await startFakeSyrve();
  teardown.add('fake Syrve upstream', syrveUpstream.close);

  // A secret-box key made for this run only: it seals the bench connections' passwords and is never printed.
  // So is the operator secret the tenant.invalidate bench calls the /ops routes with (only its digest is configured).
  const operatorSecret = `rsop_${randomBytes(32).toString('base64url')}`;
  const appEnv = {
    APP_ENV: 'test',
    KEY_PREFIX: keyPrefix,
    // Each operation makes thousands of calls as one user: the API rate limits' defaults scaled out of the way (plans,
    // which bench/operations/rate-limit.ts sets, still count as given).
    RATE_LIMIT_SCALE: '1000',
    AUTH_JWT_SECRET: BENCH_JWT_SECRET,
    INDEX_HASH_KEY: BENCH_INDEX_HASH_KEY,
    SECRETS_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    // The bench's tokens outlive a full run (an hour); the verifier refuses tokens longer than this.
    ACCESS_TOKEN_MAX_LIFETIME_SECONDS: String(BENCH_TOKEN_TTL_SECONDS),
    // The longest grace, so every timed retry of auth.refresh.retry falls within it however slow the machine.
    REFRESH_RETRY_GRACE_SECONDS: '300',
    PASSWORD_RESET_LINK_BASE: 'https://bench.runstate.test/auth/password-reset',
    INVITE_LINK_BASE: 'https://bench.runstate.test/invites/accept',
    PASSKEY_RP_ID: 'runstate.test',
    PASSKEY_ORIGINS: 'https://bench.runstate.test',
    OPERATOR_TOKEN_HASHES: `bench:${createHash('sha256').update(operatorSecret).digest('hex')}`,
    ...services.env,
  };
  // The app's logs would interleave with the report; the bench checks every response status instead.
  // Reset and invite links go nowhere: the bench counts what a send would cost up to the notifier, not an email provider.
  const mail = { sent: 0 };
  const notifier = { send: async () => void (mail.sent += 1) };
  const { app, config, deps, request } = composeApp(appEnv, { logger: createJsonLogger(() => undefined), notifier });

  // Fixtures go straight into PostgreSQL, outside the proxies, so they never show up in a count.
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  teardown.add('fixture client', () => db.end());
  // The first scheduled repair of a deployment marks its denylist whole (docs/design/revocation.md); run here, before
  // any count, so authenticated calls are measured on the healthy path.
  await denylistRepairTask.run(deps, createBudget({ commands: 100_000, timeMs: 30_000 }, systemClock), { correlationId: 'bench-setup' });

  const counters = {
    reset(): void {
      redisProxy.stats.reset();
      revocationProxy.stats.reset();
      neonProxy.stats.reset();
      syrveUpstream.resetStats();
    },
    read(): RoundTrips {
      return {
        redis: redisProxy.stats.requests,
        revocation: revocationProxy.stats.requests,
        pg: neonProxy.stats.httpRequests + neonProxy.stats.wsConnections,
        // With one proxy for both stores (never in the bench) the revocation figures would repeat the main ones.
        redisCommands: redisProxy.stats.commands,
        revocationCommands: revocationProxy.stats.commands,
        pgStatements: neonProxy.stats.statements,
        upstreamLogins: syrveUpstream.stats().logins,
      };
    },
  };

  // Straight to Redis, outside the proxies: bulk fixtures and background load that must not show up in a count.
  const redis = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  teardown.add('fixture Redis client', async () => {
    await redis.quit();
  });

  const token = (claims: TokenClaims) => mintToken(BENCH_JWT_SECRET, claims);

  /**
   * A new organisation with one location and an OrganizationAdmin; the token outlives a full run. `bound`: the token is
   * bound to the organisation as sign-in issues it (the mix's benches), else unbound (an external identity provider's).
   */
  const seedOrganization = (options: { bound?: boolean } = {}) =>
    seedOrganizationInto(db, BENCH_JWT_SECRET, { name: 'Bench org', tokenTtlSeconds: BENCH_TOKEN_TTL_SECONDS, ...options });

  /** Every round trip at the three proxies takes `ms` longer (their delay faults), as the network to real stores would. */
  const addLatency = (ms: number) => {
    for (const proxy of new Set([redisProxy, revocationProxy])) proxy.faults.set({ delayMs: ms });
    neonProxy.faults.set({ delayMs: ms });
  };

  return {
    app,
    /**
     * The environment the app was composed from (secrets included; never printed), for other instances of it: the load
     * mode's worker threads and the rate-limit flood's process (bench/rate-limit-flood.ts).
     */
    appEnv,
    jwtSecret: BENCH_JWT_SECRET,
    config,
    deps,
    db,
    redis,
    redisUrl,
    counters,
    request,
    token,
    seedOrganization,
    addLatency,
    syrveUpstream,
    mail,
    operatorSecret,
  };
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

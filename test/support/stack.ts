// The integration harness: the local stack in this process (so tests can break its proxies), the real app, and inspectors.
import { inject } from 'vitest';
import pg from 'pg';
import { composeApp, TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import type { DepsOverrides } from '../../lib/create-deps.ts';
import { systemClock } from '../../lib/deps.ts';
import { DatabaseUnavailableError } from '../../lib/pg/unavailable.ts';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { denylistRepairTask } from '../../lib/runtime/revocation/index.ts';
import { startLocalServices } from './local-services.ts';
import { openRedisInspector } from './redis-inspector.ts';
import { mintToken, type TokenClaims } from './tokens.ts';
import { TEST_JWT_SECRET, seedOrganization as seedOrganizationInto } from './fixtures.ts';

export { newInvitee } from './fixtures.ts';

export interface StackOptions {
  redisUrl?: string;
  /** A database of the test's own (migrated), instead of the run's shared one. */
  databaseUrl?: string;
  inviteTtlSeconds?: number;
  /** Put the denylist behind a proxy of its own, so faults on the main store's proxy leave auth working. */
  separateRevocationProxy?: boolean;
  env?: Record<string, string>;
  /** Dependencies to swap (clock, Syrve client); the logger is the stack's own, collecting `logs`. */
  deps?: Omit<DepsOverrides, 'logger'>;
}

export type TestStack = Awaited<ReturnType<typeof startStack>>;

export async function startStack(options: StackOptions = {}) {
  const redisUrl = options.redisUrl ?? inject('redisUrl');
  // The cluster run (test/setup/cluster.ts) hands over one node of a Redis Cluster; a test's own Redis is a lone server.
  const cluster = options.redisUrl === undefined && inject('redisCluster');
  const services = await startLocalServices({
    ...(options.redisUrl !== undefined ? { redisUrl } : {}),
    ...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
    ...(options.separateRevocationProxy === true ? { separateRevocationProxy: true } : {}),
  });
  const logs: string[] = [];
  const env = {
    ...services.env,
    ...(options.inviteTtlSeconds !== undefined ? { INVITE_TTL_SECONDS: String(options.inviteTtlSeconds) } : {}),
    ...options.env,
  };
  const composed = composeApp(env, { ...options.deps, logger: createJsonLogger((line) => logs.push(line)) });
  const { app, config, deps } = composed;
  // A caller address of its own per request unless the test names one: every test file shares one Redis, and the
  // per-address limiters (lib/runtime/throttle/limits.ts) would otherwise count all of them in one "unknown" bucket.
  let addresses = 0;
  const request: typeof composed.request = (method, path, requestOptions = {}) => {
    const named = Object.keys(requestOptions.headers ?? {}).some((name) => name.toLowerCase() === TEST_CLIENT_IP_HEADER);
    if (named) return composed.request(method, path, requestOptions);
    addresses += 1;
    const address = `127.${100 + (Math.floor(addresses / 65_536) % 100)}.${Math.floor(addresses / 256) % 256}.${addresses % 256}`;
    return composed.request(method, path, { ...requestOptions, headers: { ...requestOptions.headers, [TEST_CLIENT_IP_HEADER]: address } });
  };
  // Inspectors talk to the servers directly, to check what the app really left behind.
  const db = new pg.Client({ connectionString: services.databaseUrl });
  await db.connect();
  const redis = await openRedisInspector(redisUrl, cluster);

  // A deployment's denylist is marked whole by its first scheduled repair (docs/design/revocation.md); a store that
  // never had one gets that run here, so requests meet the healthy path as they would in production.
  // Its page read has the request deadline (1.5 s); on a machine busy with other suites that can pass, so it runs again.
  for (let attempt = 1; attempt <= 3 && (await redis.exists(deps.keys.denylistState())) === 0; attempt++) {
    const budget = createBudget({ commands: 100_000, timeMs: 30_000 }, systemClock);
    try {
      await denylistRepairTask.run(deps, budget, { correlationId: 'test-stack' });
    } catch (error) {
      if (!(error instanceof DatabaseUnavailableError) || attempt === 3) throw error;
    }
  }

  const token = (claims: TokenClaims) => mintToken(TEST_JWT_SECRET, claims);

  /** A new organisation with one location and an OrganizationAdmin, written as fixtures straight into PostgreSQL. */
  const seedOrganization = () => seedOrganizationInto(db);

  async function close(): Promise<void> {
    await redis.quit().catch(() => undefined);
    await db.end().catch(() => undefined);
    await services.close();
  }

  const { redisProxy, neonProxy } = services;
  // The denylist's own proxy with separateRevocationProxy, else the main one.
  const revocationProxy = services.revocationProxy ?? redisProxy;
  // `env` composes more app instances on the same services (separate clients, one Redis).
  return { env, app, config, deps, logs, redisProxy, revocationProxy, neonProxy, db, redis, request, token, seedOrganization, close };
}

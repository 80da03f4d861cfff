// Puts the local emulators in front of real servers: the Upstash REST proxy before a Redis, the Neon proxy before a PostgreSQL.
import { isLoopbackHost, startNeonProxy, type NeonProxy } from '../emulators/neon/index.ts';
import { startRedisRestProxy, type RedisRestProxy } from '../emulators/upstash/index.ts';
import type { Teardown } from './teardown.ts';

export interface ServicesOptions {
  /** redis://… of a running Redis, put behind a REST proxy. */
  redisUrl: string;
  /** `redisUrl` is one node of a Redis Cluster (the cluster test run). */
  redisCluster?: boolean;
  /** Put the denylist behind a second proxy in front of the same Redis, so the main proxy's faults and counts are its own. */
  separateRevocationProxy?: boolean;
  /** postgres://… of a running PostgreSQL. */
  databaseUrl: string;
  /** Above 0: each REST proxy answers reads from a replica this many ms behind its Redis (docs/design/replicas.md). */
  replicaLagMs?: number;
}

export interface Services {
  redisProxy: RedisRestProxy;
  revocationProxy?: RedisRestProxy;
  neonProxy: NeonProxy;
  /** The variables that point the app at these services (stores, database, Neon proxy); merge into its environment. */
  env: Record<string, string>;
}

/** Starts a REST proxy in front of `redisUrl` and registers its stop on `teardown`. */
export async function frontRedis(
  redisUrl: string,
  teardown: Teardown,
  name = 'Redis REST proxy',
  cluster = false,
  replicaLagMs = 0,
): Promise<RedisRestProxy> {
  const proxy = await startRedisRestProxy({ redisUrl, cluster, replicaLagMs });
  teardown.add(name, proxy.close);
  return proxy;
}

/**
 * The functions reach PostgreSQL only through the Neon driver: a PostgreSQL on this machine needs the Neon proxy in
 * front; a database on another host is taken to be a real Neon endpoint, reached directly (undefined here).
 */
export async function frontPostgres(databaseUrl: string, teardown: Teardown): Promise<NeonProxy | undefined> {
  if (!isLoopbackHost(new URL(databaseUrl).hostname)) return undefined;
  const proxy = await startNeonProxy({ databaseUrl });
  teardown.add('Neon proxy', proxy.close);
  return proxy;
}

/** Both proxies in front of local servers, for the test harness and the bench (the launcher composes the parts itself). */
export async function startServices(options: ServicesOptions, teardown: Teardown): Promise<Services> {
  const cluster = options.redisCluster === true;
  const lag = options.replicaLagMs ?? 0;
  const redisProxy = await frontRedis(options.redisUrl, teardown, 'Redis REST proxy', cluster, lag);
  const revocationProxy =
    options.separateRevocationProxy === true
      ? await frontRedis(options.redisUrl, teardown, 'revocation REST proxy', cluster, lag)
      : undefined;
  const neonProxy = await frontPostgres(options.databaseUrl, teardown);
  if (neonProxy === undefined) throw new Error('the local stack fronts a PostgreSQL on this machine only; give a loopback database URL');
  return {
    redisProxy,
    ...(revocationProxy !== undefined ? { revocationProxy } : {}),
    neonProxy,
    env: {
      UPSTASH_REDIS_REST_URL: redisProxy.url,
      UPSTASH_REDIS_REST_TOKEN: redisProxy.token,
      ...(revocationProxy !== undefined
        ? { REVOCATION_REDIS_REST_URL: revocationProxy.url, REVOCATION_REDIS_REST_TOKEN: revocationProxy.token }
        : {}),
      DATABASE_URL: options.databaseUrl,
      NEON_LOCAL_PROXY_URL: neonProxy.url,
    },
  };
}

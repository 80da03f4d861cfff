// Starts an Upstash-compatible REST proxy in front of a real Redis, so unmodified `@upstash/redis` works locally.
import { randomBytes } from 'node:crypto';
import { isLoopbackHost } from '../neon/loopback.ts';
import type { AddressInfo } from 'node:net';
import type { Cluster, Redis } from 'ioredis';
import { createTransactionPool } from './connection-pool.ts';
import { createFailover } from './failover.ts';
import { createFaultSwitch, type ProxyFaultSettings } from './faults.ts';
import { createClusterRouting, type ClusterRouting } from './cluster-routing.ts';
import { openRedisCluster, openRedisConnection } from './redis-connection.ts';
import { startReplicaRouting, type ReplicaRouting } from './replica/read-routing.ts';
import { createScriptRegistry } from './scripts.ts';
import type { ExecutionContext } from './execute.ts';
import { createProxyServer } from './server.ts';
import { createProxyStats } from './stats.ts';

export type { ProxyFaultSettings } from './faults.ts';

export interface RedisRestProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  token: string;
  faults: { set(settings: ProxyFaultSettings): void; clear(): void };
  /** requests = HTTP requests served (one per client round trip); commands = Redis commands inside them. */
  /** With `replicaLagMs`: stop the replica applying writes until `release()` (a test's certain stale read). */
  replica?: { hold(): void; release(): void };
  stats: {
    requests: number;
    commands: number;
    replicaReads: number;
    slotErrors: readonly string[];
    noScriptReplies: number;
    reset(): void;
  };
  /**
   * A failover in place: runs `REPLICAOF NO ONE` on `replicaUrl` (a replica of the Redis it fronts) and moves every
   * later request there, on the same address and token. A command in flight on the old primary fails (503, its outcome
   * unknown); requests arriving during the switch wait and go to the new primary. Not with `cluster` or `replicaLagMs`.
   */
  promote(replicaUrl: string): Promise<void>;
  /** Stops listening, closes client sockets and Redis connections. */
  close(): Promise<void>;
}

export interface RedisRestProxyOptions {
  redisUrl: string;
  /** Bearer token clients must send; a random one when omitted. */
  token?: string;
  /** 0 or omitted: a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  /**
   * Also forward CONFIG, DEBUG, MODULE, SHUTDOWN, REPLICAOF/SLAVEOF, MIGRATE, FAILOVER, ACL writes, CLIENT KILL/PAUSE
   * and CLUSTER writes (`--allow-admin`). Off by default: they reconfigure or stop Redis or reach other hosts.
   */
  allowAdmin?: boolean;
  /** `redisUrl` is one node of a Redis Cluster: route by slot, fan keyless commands out to every master (`--cluster`). */
  cluster?: boolean;
  /**
   * Above 0: reads are answered by a redis-server replica of `redisUrl` that applies the primary's writes this many
   * milliseconds late, as a Global database's read region does; `upstash-sync-token` orders a client's reads after its
   * writes (`--replica-lag-ms`, docs/design/replicas.md). Needs redis-server on PATH; not with `cluster`.
   */
  replicaLagMs?: number;
}

export async function startRedisRestProxy(options: RedisRestProxyOptions): Promise<RedisRestProxy> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  if (token === '') throw new Error('the proxy token must not be empty');
  const host = options.host ?? '127.0.0.1';
  // A dev tool next to a browser: it never listens where another machine could reach it.
  if (!isLoopbackHost(host)) throw new Error(`the REST proxy listens on loopback addresses only, not ${host}`);
  const { shared, cluster } = await openUpstream(options);
  const replica = await openReplica(options, shared).catch((error: unknown) => {
    shared.disconnect();
    throw error;
  });
  const stats = createProxyStats();
  let dropConnections = (): void => {};
  const faults = createFaultSwitch(() => dropConnections());
  // One object for the proxy's life: a promotion replaces its connections, and every request reads them from here.
  const context: ExecutionContext = {
    shared,
    ...(cluster === undefined ? {} : { cluster }),
    pool: createTransactionPool(() => openRedisConnection(options.redisUrl)),
    faults,
    scripts: createScriptRegistry(),
    allowAdmin: options.allowAdmin === true,
    ...(replica === undefined ? {} : { replica }),
  };
  const failover = createFailover(context, options.redisUrl);
  const proxy = createProxyServer({ token, stats, context, failover });
  dropConnections = proxy.dropConnections;
  const { server } = proxy;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    shared.disconnect();
    context.pool.close();
    cluster?.close();
    await replica?.stop();
    throw error;
  }

  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    token,
    faults: { set: (settings) => faults.set(settings), clear: () => faults.clear() },
    ...(replica === undefined ? {} : { replica: { hold: () => replica.hold(), release: () => replica.release() } }),
    stats,
    promote: (replicaUrl) => failover.promote(replicaUrl),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.dropConnections();
      await closed;
      await failover.settled();
      context.pool.close();
      cluster?.close();
      context.shared.disconnect();
      await replica?.stop();
    },
  };
}

async function openReplica(options: RedisRestProxyOptions, shared: Redis | Cluster): Promise<ReplicaRouting | undefined> {
  const lagMs = options.replicaLagMs ?? 0;
  if (!Number.isInteger(lagMs) || lagMs < 0) throw new Error(`the replica lag must be a whole number of milliseconds, got ${lagMs}`);
  if (lagMs === 0) return undefined;
  if (options.cluster === true) throw new Error('a lagging replica is for a single Redis, not a Redis Cluster');
  return startReplicaRouting(options.redisUrl, shared as Redis, lagMs);
}

async function openUpstream(options: RedisRestProxyOptions): Promise<{ shared: Redis | Cluster; cluster?: ClusterRouting }> {
  if (options.cluster !== true) return { shared: await openRedisConnection(options.redisUrl) };
  const shared = await openRedisCluster(options.redisUrl);
  return { shared, cluster: createClusterRouting(shared, options.redisUrl) };
}

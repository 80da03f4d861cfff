// Starts the real services every integration test needs, or fails the run naming what is missing (never skips).
import 'vitest';
import type { TestProject } from 'vitest/node';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** redis:// URL of a redis-server started for this run. */
    redisUrl: string;
    /** redisUrl is one node of a Redis Cluster (the `cluster` project, test/setup/cluster.ts). */
    redisCluster: boolean;
    /** redis:// URL of every master of that cluster (empty outside the cluster project). */
    redisClusterNodes: string[];
    /** postgres:// URL of a database created and migrated for this run. */
    databaseUrl: string;
    /** Above 0: the stack's REST proxies answer reads from a replica this many ms behind (the `lag` project, test/setup/replica-lag.ts). */
    replicaLagMs: number;
  }
}

let redis: RedisServerHandle | undefined;
let database: ScratchDatabase | undefined;

export async function setup(project: TestProject): Promise<void> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL;
  redis = await startRedisServer();
  try {
    database = await createScratchDatabase(adminUrl, 'test', 'PostgreSQL is required for the test suite; set TEST_DATABASE_ADMIN_URL');
  } catch (error) {
    await redis.stop();
    throw error;
  }
  project.provide('redisUrl', redis.url);
  project.provide('redisCluster', false);
  project.provide('redisClusterNodes', []);
  project.provide('databaseUrl', database.url);
  project.provide('replicaLagMs', 0);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
  await database?.drop();
}

// The cluster run: the same services as test/setup/global.ts, but Redis is a real 3-master Redis Cluster on loopback,
// so every key, pipeline, transaction and script of the included files meets real slots (fails, never skips).
import 'vitest';
import type { TestProject } from 'vitest/node';
import { startRedisCluster, type RedisClusterHandle } from '../../local/processes/redis-cluster.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';

let cluster: RedisClusterHandle | undefined;
let database: ScratchDatabase | undefined;

export async function setup(project: TestProject): Promise<void> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL;
  cluster = await startRedisCluster(3);
  try {
    database = await createScratchDatabase(adminUrl, 'test', 'PostgreSQL is required for the test suite; set TEST_DATABASE_ADMIN_URL');
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  const [seed] = cluster.nodeUrls;
  if (seed === undefined) throw new Error('the cluster has no nodes');
  project.provide('redisUrl', seed);
  project.provide('redisCluster', true);
  project.provide('redisClusterNodes', cluster.nodeUrls);
  project.provide('databaseUrl', database.url);
  project.provide('replicaLagMs', 0);
}

export async function teardown(): Promise<void> {
  await cluster?.stop();
  await database?.drop();
}

// Starts the real services every integration test needs, or fails the run naming what is missing (never skips).
import 'vitest';
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { startRedisServer, type RedisServerHandle } from '../../local/redis-server.ts';
import { applyMigrationsFromDisk } from '../../local/migrations-from-disk.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** redis:// URL of a redis-server started for this run. */
    redisUrl: string;
    /** postgres:// URL of a database created and migrated for this run. */
    databaseUrl: string;
  }
}

const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let redis: RedisServerHandle | undefined;
let databaseName: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  redis = await startRedisServer();
  databaseName = `runstate_test_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is required for the test suite and was not reachable at ${redactUrl(adminUrl)} ` +
        `(set TEST_DATABASE_ADMIN_URL): ${(error as Error).message}`,
    );
  }
  await admin.query(`CREATE DATABASE ${databaseName}`);
  await admin.end();
  const databaseUrl = withDatabase(adminUrl, databaseName);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await applyMigrationsFromDisk(client);
  await client.end();
  project.provide('redisUrl', redis.url);
  project.provide('databaseUrl', databaseUrl);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
  if (databaseName !== undefined) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.end();
  }
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

// Creates a fresh, migrated PostgreSQL database for one bench run and drops it afterwards.
import pg from 'pg';
import { applyMigrationsFromDisk } from '../local/migrations-from-disk.ts';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface ScratchDatabase {
  /** postgres:// URL of the scratch database. */
  url: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(adminUrl: string): Promise<ScratchDatabase> {
  const name = `runstate_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL was not reachable at ${redactUrl(adminUrl)} (set DATABASE_URL): ${(error as Error).message}`);
  }
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const drop = async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      // FORCE: pooled connections of the Neon proxy may still linger.
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  try {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await applyMigrationsFromDisk(client);
    } finally {
      await client.end();
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return { url, drop };
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

// Creates a fresh, migrated PostgreSQL database for one test or bench run, and drops it afterwards.
import pg from 'pg';
import { applyMigrationsFromDisk } from '../../ops/migrations-from-disk.ts';
import { redactUrl } from './redact-url.ts';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface ScratchDatabase {
  /** postgres:// URL of the scratch database. */
  url: string;
  drop(): Promise<void>;
}

/** `purpose` names the database (`runstate_<purpose>_<pid>_<time>`), so a leftover says who made it. */
export async function createScratchDatabase(
  adminUrl: string,
  purpose: 'test' | 'bench',
  hint = 'set DATABASE_URL',
): Promise<ScratchDatabase> {
  const name = `runstate_${purpose}_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL was not reachable at ${redactUrl(adminUrl)} (${hint}): ${(error as Error).message}`);
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

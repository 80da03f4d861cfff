// Gives the launcher and the seed a PostgreSQL: DATABASE_URL when set, else the embedded one in <data>/pg.
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../processes/embedded-postgres.ts';
import { displayPath } from './data-dir.ts';
import { originOf } from './redis.ts';
import { frontPostgres } from '../stack/services.ts';
import type { Teardown } from '../stack/teardown.ts';

export interface OpenedDatabase {
  /** postgres://…; may hold a password, never print it. */
  url: string;
  description: string;
  embedded?: EmbeddedPostgres;
  /** The embedded cluster's folder when it is staged outside the data folder. */
  stagedDataDir?: string;
}

export async function openDatabase(
  env: Record<string, string | undefined>,
  dataDir: string,
  stack: Teardown,
  log: (line: string) => void,
): Promise<OpenedDatabase> {
  const given = env.DATABASE_URL;
  if (given !== undefined && given !== '') {
    return { url: given, description: `PostgreSQL at ${originOf(given)}${databaseName(given)} (DATABASE_URL)` };
  }
  const embedded = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pg'), log });
  if (embedded.startedHere) stack.add('embedded PostgreSQL', embedded.stop);
  const reused = embedded.startedHere ? '' : ', already running before this start (reused, left running)';
  return {
    url: embedded.url,
    embedded,
    ...(embedded.dataNote !== undefined ? { stagedDataDir: embedded.dataDir } : {}),
    description:
      `embedded PostgreSQL on 127.0.0.1:${embedded.port}, data in ${displayPath(embedded.dataDir)}` +
      `${embedded.dataNote !== undefined ? ` (${embedded.dataNote})` : ''}, ` +
      `log ${displayPath(embedded.logFile)}${reused}`,
  };
}

/** NEON_LOCAL_PROXY_URL when set; else the stack's rule (a PostgreSQL on this machine gets the Neon proxy in front). */
export async function neonProxyFor(
  env: Record<string, string | undefined>,
  databaseUrl: string,
  stack: Teardown,
): Promise<string | undefined> {
  const configured = env.NEON_LOCAL_PROXY_URL;
  if (configured !== undefined && configured !== '') return configured;
  return (await frontPostgres(databaseUrl, stack))?.url;
}

function databaseName(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

// Gives the launcher and the seed a PostgreSQL: DATABASE_URL when set, else the embedded one in <data>/pg.
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../processes/embedded-postgres.ts';
import { isLoopbackHost, startNeonProxy } from '../emulators/neon/index.ts';
import { displayPath } from './data-dir.ts';
import { originOf } from './redis.ts';
import type { StopStack } from './stop-stack.ts';

export interface OpenedDatabase {
  /** postgres://…; may hold a password, never print it. */
  url: string;
  description: string;
  embedded?: EmbeddedPostgres;
}

export async function openDatabase(
  env: Record<string, string | undefined>,
  dataDir: string,
  stack: StopStack,
  log: (line: string) => void,
): Promise<OpenedDatabase> {
  const given = env.DATABASE_URL;
  if (given !== undefined && given !== '') {
    return { url: given, description: `PostgreSQL at ${originOf(given)}${databaseName(given)} (DATABASE_URL)` };
  }
  const embedded = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pg'), log });
  if (embedded.startedHere) stack.push('embedded PostgreSQL', embedded.stop);
  const reused = embedded.startedHere ? '' : ', already running before this start (reused, left running)';
  return {
    url: embedded.url,
    embedded,
    description:
      `embedded PostgreSQL on 127.0.0.1:${embedded.port}, data in ${displayPath(embedded.dataDir)}, ` +
      `log ${displayPath(embedded.logFile)}${reused}`,
  };
}

/**
 * The functions reach PostgreSQL only through the Neon driver: a plain Postgres on this machine needs the
 * local Neon proxy in front; a remote URL is taken to be a real Neon endpoint, reached directly.
 */
export async function neonProxyFor(
  env: Record<string, string | undefined>,
  databaseUrl: string,
  stack: StopStack,
): Promise<string | undefined> {
  const configured = env.NEON_LOCAL_PROXY_URL;
  if (configured !== undefined && configured !== '') return configured;
  if (!isLoopbackHost(new URL(databaseUrl).hostname)) return undefined;
  const proxy = await startNeonProxy({ databaseUrl });
  stack.push('Neon proxy', proxy.close);
  return proxy.url;
}

function databaseName(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

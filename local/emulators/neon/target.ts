// The one PostgreSQL the local Neon proxy may reach, fixed when it starts; every tunnel and query is checked against it.
import { isLoopbackHost } from './loopback.ts';

export interface PostgresTarget {
  /** As written in the database URL, brackets removed: `127.0.0.1`, `localhost`, `::1`. */
  host: string;
  port: number;
}

const DEFAULT_PORT = 5432;

/** The host and port of a postgres:// URL on this machine; throws (naming no credentials) for anything else. */
export function postgresTargetOf(databaseUrl: string): PostgresTarget {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error('the Neon proxy needs a postgres:// database URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new Error('the Neon proxy needs a postgres:// database URL');
  const host = bareHost(url.hostname);
  if (!isLoopbackHost(host)) throw new Error(`the Neon proxy only fronts a PostgreSQL on this machine, not ${host}`);
  return { host, port: portOf(url.port) };
}

/** True when host and port name the target exactly (no DNS, no aliasing of localhost to 127.0.0.1). */
export function isTarget(target: PostgresTarget, host: string, port: number): boolean {
  return bareHost(host) === target.host && port === target.port;
}

/** A URL's port field ('' means the PostgreSQL default). */
export function portOf(field: string): number {
  return field === '' ? DEFAULT_PORT : Number(field);
}

function bareHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}

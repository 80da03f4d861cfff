// One-round-trip PostgreSQL access over the Neon driver's HTTP transport: single queries and non-interactive batches.
import type * as NeonDriver from '@neondatabase/serverless';
import { localProxyFetchOptions } from './local-proxy.ts';

// The driver is one pre-bundled module (HTTP, WebSocket Pool, SCRAM, a Buffer polyfill): evaluating it at import cost
// every cold start tens of milliseconds of CPU, even one that never queries. It is loaded on the first query instead,
// once per isolate or process; the bundlers keep it in the bundle, only its evaluation waits.
let driver: Promise<typeof NeonDriver> | undefined;
const loadDriver = (): Promise<typeof NeonDriver> => (driver ??= import('@neondatabase/serverless'));

/** Where the database is: a postgres:// URL, and optionally the local Neon proxy in front of a plain Postgres. */
export interface PgConnectionConfig {
  databaseUrl: string;
  /** e.g. http://127.0.0.1:5999 — set only for local dev and tests (local/emulators/neon). */
  neonLocalProxyUrl?: string;
}

/** A parameterised SQL statement ($1, $2, … placeholders). */
export interface Statement {
  text: string;
  params: unknown[];
}

/** Per call: `signal` aborts the HTTP request (dbCall passes its kind's deadline; lib/pg/call-policy.ts). */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface Db {
  /** Runs one statement in one HTTP round trip and returns its rows. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[], options?: CallOptions): Promise<T[]>;
  /** Runs the statements as one atomic batch (BEGIN … COMMIT) in one HTTP round trip; rows per statement. */
  transaction(statements: Statement[], options?: CallOptions): Promise<Record<string, unknown>[][]>;
}

/**
 * Builds a Db on neon(). Postgres errors reject with the driver's NeonDbError, whose `code` is the
 * SQLSTATE (e.g. '23505') and which also carries `constraint`, `table`, `detail` when Postgres sent them.
 * Values come back parsed the pg way: int4 → number, int8/numeric → string, json → object,
 * timestamptz → Date, arrays → arrays.
 */
export function createDb(config: PgConnectionConfig): Db {
  assertDatabaseUrl(config.databaseUrl);
  const { databaseUrl, neonLocalProxyUrl } = config;
  let client: Promise<NeonDriver.NeonQueryFunction<false, false>> | undefined;
  const sqlClient = () =>
    (client ??= loadDriver().then(({ neon, neonConfig }) => {
      const fetchOptions = neonLocalProxyUrl === undefined ? undefined : localProxyFetchOptions(neonLocalProxyUrl, neonConfig);
      return neon(databaseUrl, fetchOptions === undefined ? {} : { fetchOptions });
    }));
  // The driver merges per-call fetchOptions over the instance's (the local proxy's route survives); an aborted
  // fetch rejects with an error that has no SQLSTATE, which dbCall reads as unavailable.
  const perCall = (options: CallOptions) => (options.signal === undefined ? undefined : { fetchOptions: { signal: options.signal } });
  return {
    async query<T = Record<string, unknown>>(text: string, params: unknown[] = [], options: CallOptions = {}): Promise<T[]> {
      const sql = await sqlClient();
      return (await sql.query(text, params, perCall(options))) as T[];
    },
    async transaction(statements: Statement[], options: CallOptions = {}): Promise<Record<string, unknown>[][]> {
      if (statements.length === 0) return [];
      const sql = await sqlClient();
      const queries = statements.map((statement) => sql.query(statement.text, statement.params));
      return (await sql.transaction(queries, perCall(options))) as Record<string, unknown>[][];
    },
  };
}

// The driver's own URL error quotes the whole connection string, password included; fail earlier without it.
function assertDatabaseUrl(databaseUrl: string): void {
  let parsed: URL;
  try {
    parsed = new URL(databaseUrl);
  } catch {
    throw new Error('databaseUrl is not a valid URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error('databaseUrl must start with postgres:// or postgresql://');
  }
  const { hostname, username, pathname } = new URL(`http:${databaseUrl.slice(parsed.protocol.length)}`);
  if (hostname === '' || username === '' || pathname === '' || pathname === '/') {
    throw new Error('databaseUrl must name a user, a host and a database');
  }
}

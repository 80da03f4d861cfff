// Neon's SQL-over-HTTP contract (POST /sql) in front of a plain Postgres, answering raw text values for the driver to parse.
import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';
import type { NeonProxyStats, SqlFaults } from './faults.ts';
import { isTarget, portOf, type PostgresTarget } from './target.ts';

interface HttpQuery {
  query: string;
  params: unknown[];
}

interface NeonResult {
  fields: pg.FieldDef[];
  command: string;
  rowCount: number | null;
  rows: unknown[];
  rowAsArray: boolean;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The only query parameters a connection string may carry. Everything else is refused, because pg reads more than
 * it seems: `host`/`hostaddr`/`port` redirect the connection (a unix-socket folder too), `sslkey`/`sslcert`/
 * `sslrootcert` read local files. `sslmode` and `channel_binding` come with Neon's own connection strings and are
 * ignored: the proxy speaks plain TCP to a Postgres on this machine.
 */
const HARMLESS_PARAMETERS = new Set(['application_name', 'sslmode', 'channel_binding']);

/** What pg gets: the configured host and port, plus who connects to which database. Nothing else reaches pg. */
interface ConnectionConfig {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  application_name?: string;
}

// Every value stays the Postgres text the server sent; the driver applies its own parsers by dataTypeID.
const RAW_TEXT_TYPES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

const ISOLATION_LEVELS: Record<string, string> = {
  ReadUncommitted: 'READ UNCOMMITTED',
  ReadCommitted: 'READ COMMITTED',
  RepeatableRead: 'REPEATABLE READ',
  Serializable: 'SERIALIZABLE',
};

const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
] as const;

/** A 4xx/5xx answer the handler sends as-is. */
class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface SqlEndpoint {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Ends every Postgres pool opened so far. */
  close(): Promise<void>;
}

export function createSqlEndpoint(
  target: PostgresTarget,
  faults: SqlFaults,
  stats: Pick<NeonProxyStats, 'statements' | 'requestTexts'>,
): SqlEndpoint {
  const pools = new Map<string, pg.Pool>();

  function poolFor(connection: ConnectionConfig): pg.Pool {
    const key = JSON.stringify(connection);
    let pool = pools.get(key);
    if (pool === undefined) {
      pool = new pg.Pool({ ...connection, max: 10, idleTimeoutMillis: 10_000, allowExitOnIdle: true });
      // An idle connection dropped by Postgres (restart, DROP DATABASE … FORCE) must not crash the process.
      pool.on('error', () => undefined);
      pools.set(key, pool);
    }
    return pool;
  }

  return {
    async handle(req, res) {
      try {
        // A browser page (even one whose name was rebound to 127.0.0.1) always sends Origin; the driver never does.
        if (req.headers.origin !== undefined) throw new HttpFailure(403, 'the local Neon proxy does not answer browsers');
        const connection = targetConnection(req, target);
        const body = parseBody(await readBody(req));
        const statements = (Array.isArray(body) ? body : [body]).map((query) => query.query);
        stats.statements += statements.length;
        if (stats.requestTexts.length < 10_000) stats.requestTexts.push(statements[0] ?? '');
        const hung = faults.holdIfHung(statements);
        if (hung !== undefined) {
          // A hung database never runs the SQL; when the fault is cleared the client just loses its connection.
          await hung;
          req.socket.destroy();
          return;
        }
        const arrayMode = req.headers['neon-array-mode'] === 'true';
        const pool = poolFor(connection);
        const answer = Array.isArray(body)
          ? { results: await runBatch(pool, body, beginStatement(req), arrayMode) }
          : await runQuery(pool, body, arrayMode);
        if (faults.cutAfterCommit(statements)) {
          // Committed (a batch ran COMMIT, a single statement autocommitted), and the reply is lost on the way.
          req.socket.destroy();
          return;
        }
        sendJson(res, 200, answer);
      } catch (error) {
        sendError(res, error);
      }
    },
    async close() {
      const ending = [...pools.values()].map((pool) => pool.end().catch(() => undefined));
      pools.clear();
      await Promise.all(ending);
    },
  };
}

/** Reads Neon-Connection-String: the configured host and port only, and only the harmless parameters. */
function targetConnection(req: IncomingMessage, target: PostgresTarget): ConnectionConfig {
  const header = req.headers['neon-connection-string'];
  if (typeof header !== 'string' || header === '') {
    throw new HttpFailure(400, 'missing Neon-Connection-String header');
  }
  let url: URL;
  try {
    url = new URL(header);
  } catch {
    throw new HttpFailure(400, 'Neon-Connection-String is not a valid URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new HttpFailure(400, 'Neon-Connection-String must be a postgres:// URL');
  }
  const refused = [...url.searchParams.keys()].filter((name) => !HARMLESS_PARAMETERS.has(name));
  if (refused.length > 0) {
    throw new HttpFailure(400, `the local Neon proxy refuses these connection parameters: ${[...new Set(refused)].join(', ')}`);
  }
  if (!isTarget(target, url.hostname, portOf(url.port))) {
    throw new HttpFailure(403, 'the local Neon proxy only connects to the PostgreSQL it was started for');
  }
  const applicationName = url.searchParams.get('application_name');
  return {
    host: target.host,
    port: target.port,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    ...(applicationName !== null ? { application_name: applicationName } : {}),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpFailure(413, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string): HttpQuery | HttpQuery[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpFailure(400, 'request body is not JSON');
  }
  if (typeof body === 'object' && body !== null && 'queries' in body) {
    const { queries } = body as { queries: unknown };
    if (!Array.isArray(queries)) throw new HttpFailure(400, '"queries" must be an array');
    return queries.map(checkQuery);
  }
  return checkQuery(body);
}

function checkQuery(value: unknown): HttpQuery {
  const candidate = value as { query?: unknown; params?: unknown } | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.query !== 'string') {
    throw new HttpFailure(400, 'each query needs a "query" string');
  }
  const params = candidate.params ?? [];
  if (!Array.isArray(params)) throw new HttpFailure(400, '"params" must be an array');
  return { query: candidate.query, params };
}

function beginStatement(req: IncomingMessage): string {
  const parts = ['BEGIN'];
  const isolation = req.headers['neon-batch-isolation-level'];
  if (typeof isolation === 'string') {
    const level = ISOLATION_LEVELS[isolation];
    if (level === undefined) throw new HttpFailure(400, 'unknown Neon-Batch-Isolation-Level');
    parts.push(`ISOLATION LEVEL ${level}`);
  }
  const readOnly = req.headers['neon-batch-read-only'];
  if (readOnly === 'true') parts.push('READ ONLY');
  else if (readOnly === 'false') parts.push('READ WRITE');
  const deferrable = req.headers['neon-batch-deferrable'];
  if (deferrable === 'true') parts.push('DEFERRABLE');
  else if (deferrable === 'false') parts.push('NOT DEFERRABLE');
  return parts.join(' ');
}

async function runQuery(runner: pg.Pool | pg.PoolClient, query: HttpQuery, arrayMode: boolean): Promise<NeonResult> {
  // Extended protocol always, as Neon does: one statement per query, parameters never interpolated.
  const config = {
    text: query.query,
    values: query.params,
    rowMode: 'array' as const,
    types: RAW_TEXT_TYPES,
    queryMode: 'extended',
  };
  const result = await runner.query<unknown[]>(config);
  const names = result.fields.map((field) => field.name);
  return {
    fields: result.fields,
    command: result.command,
    rowCount: result.rowCount,
    rows: arrayMode ? result.rows : result.rows.map((row) => Object.fromEntries(row.map((v, i) => [names[i], v]))),
    rowAsArray: arrayMode,
  };
}

async function runBatch(pool: pg.Pool, queries: HttpQuery[], begin: string, arrayMode: boolean): Promise<NeonResult[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(begin);
    try {
      const results: NeonResult[] = [];
      for (const query of queries) results.push(await runQuery(client, query, arrayMode));
      await client.query('COMMIT');
      return results;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    }
  } catch (error) {
    if (!(error instanceof pg.DatabaseError)) broken = error as Error;
    throw error;
  } finally {
    client.release(broken);
  }
}

function sendError(res: ServerResponse, error: unknown): void {
  if (error instanceof HttpFailure) {
    sendJson(res, error.status, { message: error.message });
  } else if (error instanceof pg.DatabaseError) {
    // The shape Neon answers with: the message plus every Postgres error field, so `code` reaches the caller.
    const answer: Record<string, unknown> = { message: error.message };
    for (const field of ERROR_FIELDS) if (error[field] !== undefined) answer[field] = error[field];
    sendJson(res, 400, answer);
  } else {
    sendJson(res, 502, { message: `PostgreSQL unreachable: ${(error as Error).message}` });
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

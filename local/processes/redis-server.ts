// Starts a real redis-server from PATH on a free port, for `npm start` and for tests that stop or break a server.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { ceilingCommandsFor, parseServerVersion, refusedRename } from './redis-ceiling.ts';

export interface RedisServerHandle {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  port?: number;
  /** Data folder; with `persistence` on, AOF and RDB files are written here. */
  dir?: string;
  /** AOF + RDB on (the dev stack), off for throwaway test instances. */
  persistence?: boolean;
  /** requirepass; handed over on stdin, never in argv, and part of `url`. Letters, digits, `-` and `_` only. */
  password?: string;
  /**
   * Rename away every command newer than Redis 6.0 (redis-ceiling.ts), so code that calls one fails here as it
   * would on a managed Redis 6.0. On by default; off only where newer commands are the point (the client-suite comparison).
   */
  ceiling?: boolean;
  /** Start as a Redis Cluster node (nodes.conf in `dir`); redis-cluster.ts joins such nodes into a cluster. */
  cluster?: boolean;
  /** `--maxmemory-policy` (Redis's default is noeviction): for tests of what health and keys:audit say about it. */
  maxmemoryPolicy?: string;
}

export const REDIS_INSTALL_HINT =
  'redis-server was not found on PATH. Install Redis 6.0 or newer (Debian/Ubuntu: `sudo apt-get install redis-server`, ' +
  'macOS: `brew install redis`) or set REDIS_URL to a running Redis.';

export function hasRedisServer(): boolean {
  return redisServerVersion() !== undefined;
}

// Asked once per PATH: a process (a test) that changes PATH gets the answer for the PATH it has now.
const knownVersions = new Map<string, string | undefined>();

/** `7.0.15` for the redis-server on PATH, or undefined when there is none. */
export function redisServerVersion(): string | undefined {
  const path = process.env.PATH ?? '';
  if (knownVersions.has(path)) return knownVersions.get(path);
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  // A build that prints no version still runs; taken as 6.0, it gets no renames.
  const version = probe.status !== 0 ? undefined : (parseServerVersion(probe.stdout) ?? '6.0.0');
  knownVersions.set(path, version);
  return version;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerHandle> {
  const version = redisServerVersion();
  if (version === undefined) throw new Error(REDIS_INSTALL_HINT);
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--protected-mode', 'yes', '--save', '', '--appendonly', 'no'];
  // A replica's first sync (the REST proxy's lagging one) starts at once instead of waiting 5 s for more replicas.
  args.push('--repl-diskless-sync-delay', '0');
  // Without a folder of its own, a SAVE or a shutdown save would write dump.rdb into whatever folder we run in.
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'runstate-redis-'));
  mkdirSync(dir, { recursive: true });
  args.push('--dir', dir);
  const removeScratch = options.dir === undefined ? () => rm(dir, { recursive: true, force: true }) : async () => undefined;
  if (options.persistence === true) {
    // Dev Redis keeps AOF and RDB, so the dev stack's state outlives a restart; both live in the git-ignored data folder.
    args.push('--appendonly', 'yes', '--save', '900 1 300 10 60 10000');
  }
  // The cluster bus listens on port + 10000 (how every Redis version picks it); redis-cluster.ts checks it is free.
  if (options.cluster === true)
    args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000');
  if (options.maxmemoryPolicy !== undefined) args.push('--maxmemory-policy', options.maxmemoryPolicy);
  const password = options.password;
  if (password !== undefined && !/^[\w-]+$/.test(password)) throw new Error('the redis-server password must be letters, digits, - or _');
  let renamed = options.ceiling === false ? [] : ceilingCommandsFor(version);
  let child: ChildProcess;
  for (;;) {
    const started = spawnServer(args, stdinConfig(password, renamed));
    child = started.child;
    const failure = await waitForPort(port, child, started.stderr).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    if (failure === undefined) break;
    // A fork (Valkey, say) may lack a command its version number suggests: rename what it has and start again.
    await started.closed;
    const unknown = refusedRename(started.stderr());
    if (unknown === undefined || !renamed.includes(unknown)) {
      await removeScratch();
      throw failure;
    }
    renamed = renamed.filter((name) => name !== unknown);
  }
  const auth = password === undefined ? '' : `:${password}@`;
  return { url: `redis://${auth}127.0.0.1:${port}`, port, stop: () => stopChild(child).then(removeScratch) };
}

function spawnServer(args: string[], config: string): { child: ChildProcess; stderr: () => string; closed: Promise<void> } {
  // `redis-server -` reads a config from stdin before the argv options: the one place for a secret that ps never shows.
  const child = spawn('redis-server', ['-', ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(config);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close' comes after the last stderr chunk, so a refusal read then is whole.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { child, stderr: () => stderr, closed };
}

function stdinConfig(password: string | undefined, renamed: string[]): string {
  const lines = [
    // MIGRATE connects to any host:port it is given, and Redis lets scripts call it (unlike CONFIG, DEBUG or
    // REPLICAOF, which it refuses inside EVAL): a server we start never reaches another host.
    'rename-command MIGRATE ""',
    // Renamed to nothing, a command is unknown to clients and to redis.call alike: the 6.0 ceiling, enforced.
    ...renamed.map((name) => `rename-command ${name} ""`),
  ];
  if (password !== undefined) lines.push(`requirepass "${password}"`);
  return `${lines.join('\n')}\n`;
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited early: ${stderr()}`);
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not listen on ${port} within 10 s`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** How long a SIGTERM may take: Redis refuses to shut down while its final save fails (say, its folder was deleted). */
const STOP_GRACE_MS = 10_000;

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

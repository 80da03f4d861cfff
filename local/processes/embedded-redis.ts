// An in-process, Redis-compatible server (js-redis-server) on 127.0.0.1, for `npm start` on a machine without redis-server.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import { restoreSnapshot, saveSnapshot, type SnapshotResult } from './redis-snapshot.ts';

/** The oldest profile the engine has; runstate's own ceiling (Redis 6.0) is older still (docs/design/redis.md#redis-rules). */
export const EMBEDDED_REDIS_PROFILE = 'redis-6.2';

export interface EmbeddedRedisOptions {
  /** requirepass; part of `url` only, never logged. */
  password?: string;
  /** The keyspace file: restored on start when present, written on stop and every `saveIntervalMs` after a change. */
  snapshotFile?: string;
  /** How often a changed keyspace is written while running, so a crash loses at most this much; default 5 s. */
  saveIntervalMs?: number;
  /** 0 or omitted: a port the OS picks. */
  port?: number;
  log?: (line: string) => void;
}

export interface EmbeddedRedisHandle {
  url: string;
  port: number;
  /** "js-redis-server 0.3.0 (redis-6.2 profile)". */
  engine: string;
  /** What the start found in the snapshot file, when there was one. */
  restored?: SnapshotResult;
  stop(): Promise<void>;
}

const DEFAULT_SAVE_INTERVAL_MS = 5_000;

export async function startEmbeddedRedis(options: EmbeddedRedisOptions = {}): Promise<EmbeddedRedisHandle> {
  const log = options.log ?? (() => undefined);
  // Loaded only here, so a launcher with a redis-server never pays for the engine and its WebAssembly Lua.
  const { RedisServerState, Resp2Server, createRedisCommandExecutor } = await import('js-redis-server/core');
  const state = new RedisServerState({
    databaseCount: 16,
    compatibility: EMBEDDED_REDIS_PROFILE,
    ...(options.password !== undefined ? { requirepass: options.password } : {}),
  });
  const resp = new Resp2Server({ server: state, executor: createRedisCommandExecutor({ compatibility: EMBEDDED_REDIS_PROFILE }) });
  const sockets = new Set<Socket>();
  resp.server.on('connection', (socket: Socket) => {
    // The engine writes each reply of a pipeline on its own; with Nagle on, the second waits for the client's delayed
    // ACK (about 40 ms on Linux) whenever two commands share a connection, as the REST proxy's do.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // The engine's own listen() binds every interface; a dev store is for this machine only.
  await new Promise<void>((resolve, reject) => {
    resp.server.once('error', reject);
    resp.server.listen({ host: '127.0.0.1', port: options.port ?? 0 }, () => {
      resp.server.off('error', reject);
      resolve();
    });
  });
  const { port } = resp.server.address() as AddressInfo;
  const url = `redis://${options.password !== undefined ? `:${options.password}@` : ''}127.0.0.1:${port}`;
  const close = async (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    await resp.close();
  };

  const file = options.snapshotFile;
  if (file === undefined) return { url, port, engine: engineName(), stop: close };

  // The snapshot's own connection, over the same loopback port and password as every other client.
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  client.on('error', () => undefined);
  let restored: SnapshotResult | undefined;
  try {
    await client.connect();
    if (existsSync(file)) restored = await restoreSnapshot(client, file);
  } catch (error) {
    client.disconnect();
    await close();
    throw new Error(`${(error as Error).message} (move the file away to start with an empty keyspace)`);
  }

  let dirty = false;
  state.databases[0]?.subscribe(() => (dirty = true));
  let saving: Promise<unknown> = Promise.resolve();
  const save = (): Promise<unknown> => {
    dirty = false;
    saving = saving.then(() =>
      saveSnapshot(client, file).catch((error: unknown) => {
        dirty = true;
        log(`embedded Redis: could not write ${file}: ${(error as Error).message}`);
      }),
    );
    return saving;
  };
  const timer = setInterval(() => void (dirty ? save() : undefined), options.saveIntervalMs ?? DEFAULT_SAVE_INTERVAL_MS);
  timer.unref();

  return {
    url,
    port,
    engine: engineName(),
    ...(restored !== undefined ? { restored } : {}),
    async stop() {
      clearInterval(timer);
      // The last word: everything the clients wrote before they were stopped (the REST proxy stops first).
      try {
        await saving;
        await saveSnapshot(client, file);
      } finally {
        client.disconnect();
        await close();
      }
    },
  };
}

/** The engine's package name and pinned version, for the banner. */
export function engineName(): string {
  const require = createRequire(import.meta.url);
  // package.json is not in the package's exports map: find it beside the resolved entry (dist/index.js).
  const manifest = join(dirname(require.resolve('js-redis-server')), '..', 'package.json');
  const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string };
  return `${name} ${version} (${EMBEDDED_REDIS_PROFILE} profile)`;
}

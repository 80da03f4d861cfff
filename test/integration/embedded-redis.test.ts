// The embedded Redis engine npm start runs without a redis-server: loopback only, a password, and a keyspace that
// outlives a stop (with TTLs) or a crash (the periodic save); and provideRedis choosing it when PATH has no redis-server.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis as IORedis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_SNAPSHOT_FILE, provideRedis } from '../../local/launcher/redis.ts';
import { startEmbeddedRedis, type EmbeddedRedisHandle } from '../../local/processes/embedded-redis.ts';
import { restoreSnapshot, saveSnapshot } from '../../local/processes/redis-snapshot.ts';
import { startRedisServer } from '../../local/processes/redis-server.ts';
import { createTeardown } from '../../local/stack/teardown.ts';
import { pathWithout } from '../support/path-without.ts';

const PASSWORD = 'embedded-test-password';
let work: string;
const running: EmbeddedRedisHandle[] = [];
const clients: IORedis[] = [];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'embedded-redis-'));
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  for (const server of running.splice(0)) await server.stop().catch(() => undefined);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function start(options: Parameters<typeof startEmbeddedRedis>[0] = {}): Promise<EmbeddedRedisHandle> {
  const server = await startEmbeddedRedis({ password: PASSWORD, ...options });
  running.push(server);
  return server;
}

function client(url: string): IORedis {
  const redis = new IORedis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  clients.push(redis);
  return redis;
}

async function stop(server: EmbeddedRedisHandle): Promise<void> {
  running.splice(running.indexOf(server), 1);
  for (const redis of clients.splice(0)) redis.disconnect();
  await server.stop();
}

/** The first reply line to one inline command, over plain TCP and without AUTH; or the connection error's code. */
function rawCommand(host: string, port: number, command: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port }, () => socket.write(`${command}\r\n`));
    let reply = '';
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.split('\r\n')[0] ?? '');
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('the engine', () => {
  it('listens on 127.0.0.1 only and refuses a client without the password', async () => {
    const server = await start();
    expect(server.engine).toMatch(/^js-redis-server \d+\.\d+\.\d+ \(redis-6\.2 profile\)$/);
    expect(await rawCommand('127.0.0.1', server.port, 'PING')).toMatch(/^-NOAUTH/);
    // 127.0.0.2 is this machine too: a server bound to every interface would answer there.
    expect(await rawCommand('127.0.0.2', server.port, 'PING')).toBe('ECONNREFUSED');
    expect(await client(server.url).ping()).toBe('PONG');
  });

  it('answers two commands in flight on one connection without a delayed-ACK stall (Nagle off)', async () => {
    const server = await start();
    const redis = client(server.url);
    const rounds: number[] = [];
    for (let i = 0; i < 21; i += 1) {
      const started = performance.now();
      await Promise.all([redis.get('a'), redis.get('b')]);
      rounds.push(performance.now() - started);
    }
    // With Nagle on, the second reply waits for the client's delayed ACK: about 40 ms a round on Linux.
    expect(rounds.sort((x, y) => x - y)[10]).toBeLessThan(25);
  });

  it('still has the misses local/README.md lists: no shebang scripts, no DUMP (so the docs change when the engine does)', async () => {
    const redis = client((await start()).url);
    await expect(redis.eval('#!lua flags=no-writes\nreturn 1', 0)).rejects.toThrow("unexpected symbol near '#'");
    await redis.set('dumped', 'x');
    await expect(redis.call('DUMP', 'dumped')).rejects.toThrow(/unknown command/i);
  });

  it('keeps every key with its TTL across a stop and a start; a key that expired meanwhile stays gone; the file is 0600', async () => {
    const file = join(work, 'roundtrip.json');
    const first = await start({ snapshotFile: file });
    const redis = client(first.url);
    const binary = Buffer.from([0, 1, 0xfe, 0xff, 0x0d, 0x0a]);
    await redis.set(binary, binary, 'EX', 3_600);
    await redis.set('plain', '{"json":true}');
    await redis.zadd('scores', 1.5, 'a', '+inf', 'b', -2, 'c');
    await redis.pexpire('scores', 7_200_000);
    await redis.hset('hash', 'f1', 'v1', 'f2', 'v2');
    await redis.rpush('list', 'x', 'y', 'x');
    await redis.sadd('set', 'm1', 'm2');
    await redis.set('short', 'gone soon', 'PX', 300);
    await stop(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Not a word of the password in the file.
    expect(readFileSync(file, 'utf8')).not.toContain(PASSWORD);

    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const second = await start({ snapshotFile: file });
    expect(second.restored).toEqual({ keys: 6, skipped: 1 });
    const again = client(second.url);
    expect(await again.getBuffer(binary)).toEqual(binary);
    // The TTL kept running while the engine was stopped (absolute expiry, as an RDB file keeps it).
    const ttl = await again.pttl(binary);
    expect(ttl).toBeLessThanOrEqual(3_600_000 - 1_200);
    expect(ttl).toBeGreaterThan(3_600_000 - 5_000);
    expect(await again.pttl('scores')).toBeGreaterThan(7_200_000 - 5_000);
    expect(await again.get('plain')).toBe('{"json":true}');
    expect(await again.ttl('plain')).toBe(-1);
    expect(await again.zrange('scores', 0, -1, 'WITHSCORES')).toEqual(['c', '-2', 'a', '1.5', 'b', 'inf']);
    expect(await again.hgetall('hash')).toEqual({ f1: 'v1', f2: 'v2' });
    expect(await again.lrange('list', 0, -1)).toEqual(['x', 'y', 'x']);
    expect((await again.smembers('set')).sort()).toEqual(['m1', 'm2']);
    expect(await again.exists('short')).toBe(0);
  });

  it('writes a changed keyspace while running, so a crash loses at most the save interval', async () => {
    const file = join(work, 'periodic.json');
    const server = await start({ snapshotFile: file, saveIntervalMs: 100 });
    await client(server.url).set('written-before-the-crash', 'kept', 'EX', 600);
    const deadline = Date.now() + 5_000;
    while (!(existsSync(file) && readFileSync(file, 'utf8').includes(Buffer.from('kept').toString('base64'))) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A second engine on the file as it is now, as the next start after a crash would find it.
    const afterCrash = await start({ snapshotFile: file, saveIntervalMs: 60_000 });
    expect(await client(afterCrash.url).get('written-before-the-crash')).toBe('kept');
  });

  it('refuses to start on a file it did not write, naming it, and leaves the file alone', async () => {
    const file = join(work, 'corrupt.json');
    writeFileSync(file, '{"format":"something else"}');
    await expect(start({ snapshotFile: file })).rejects.toThrow(`${file} is not a Redis snapshot this launcher wrote`);
    expect(readFileSync(file, 'utf8')).toBe('{"format":"something else"}');
  });

  it('writes the same snapshot format from a real redis-server, which the engine restores', async () => {
    const real = await startRedisServer();
    const file = join(work, 'from-real.json');
    const redis = new IORedis(real.url);
    try {
      await redis.set('from-real', 'value', 'EX', 900);
      await redis.zadd('from-real-zset', 3, 'three');
      expect(await saveSnapshot(redis, file)).toEqual({ keys: 2, skipped: 0 });
    } finally {
      redis.disconnect();
      await real.stop();
    }
    const server = await start();
    const engine = client(server.url);
    expect(await restoreSnapshot(engine, file)).toEqual({ keys: 2, skipped: 0 });
    expect(await engine.get('from-real')).toBe('value');
    expect(await engine.ttl('from-real')).toBeGreaterThan(890);
    expect(await engine.zscore('from-real-zset', 'three')).toBe('3');
  });
});

describe('provideRedis without a redis-server on PATH', () => {
  it('starts the engine behind the REST proxy, names it, keeps the password 0600, and keeps a key across a restart', async () => {
    const dataDir = join(work, 'data');
    const stripped = pathWithout(['redis-server']);
    const savedPath = process.env.PATH;
    process.env.PATH = stripped.path;
    const lines: string[] = [];
    try {
      let stack = createTeardown();
      const first = await provideRedis({}, dataDir, stack, (line) => lines.push(line));
      expect(first.description).toMatch(/^js-redis-server \S+ \(redis-6\.2 profile\), embedded in this process on 127\.0\.0\.1:\d+/);
      expect(first.description).toContain(join(dataDir, 'redis', EMBEDDED_SNAPSHOT_FILE));
      expect(first.description).toMatch(/behind the REST proxy http:\/\/127\.0\.0\.1:\d+$/);
      expect(stack.names()).toEqual(['Redis REST proxy', 'embedded Redis']);
      const rest = (body: unknown) =>
        fetch(first.url, { method: 'POST', headers: { authorization: `Bearer ${first.token}` }, body: JSON.stringify(body) }).then(
          (response) => response.json(),
        );
      expect(await rest(['set', 'kept-across-restarts', 'yes', 'EX', '600'])).toEqual({ result: 'OK' });
      await stack.run();

      const passwordFile = join(dataDir, 'redis', 'password');
      expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, 'redis')).mode & 0o777).toBe(0o700);
      const password = readFileSync(passwordFile, 'utf8').trim();
      stack = createTeardown();
      const second = await provideRedis({}, dataDir, stack, (line) => lines.push(line));
      const again = await fetch(second.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${second.token}` },
        body: JSON.stringify(['get', 'kept-across-restarts']),
      });
      expect(await again.json()).toEqual({ result: 'yes' });
      await stack.run();
      expect(lines).toContain('no redis-server on PATH: starting the embedded Redis engine (js-redis-server, in this process)');
      expect(lines.some((line) => /^embedded Redis: restored 1 keys from /.test(line))).toBe(true);
      for (const line of [...lines, first.description, second.description]) expect(line).not.toContain(password);
    } finally {
      process.env.PATH = savedPath;
      stripped.remove();
    }
  });
});

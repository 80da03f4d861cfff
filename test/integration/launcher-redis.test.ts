// The redis-server `npm start` runs has a password of its own, kept 0600 in the data folder, never on a command line.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startBystander, type Bystander } from '../support/bystander.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provideRedis, type ProvidedRedis } from '../../local/launcher/redis.ts';
import { createTeardown, type Teardown } from '../../local/stack/teardown.ts';

let work: string;
let dataDir: string;
let argvLog: string;
let savedPath: string | undefined;
let bystander: Bystander;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'launcher-redis-'));
  dataDir = join(work, 'data');
  argvLog = join(work, 'argv.log');
  // A redis-server first on PATH that writes down its pid and exact argv, then becomes the real one (same pid).
  const realRedis = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'redis-server'), `#!/bin/sh\nprintf '%s\\n' "pid $$" "$@" >> '${argvLog}'\nexec '${realRedis}' "$@"\n`);
  chmodSync(join(bin, 'redis-server'), 0o755);
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}:${savedPath ?? ''}`;
  bystander = await startBystander({ host: '127.0.0.2' });
});

afterAll(async () => {
  process.env.PATH = savedPath;
  await bystander?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Sends one inline command over plain TCP, without authenticating, and returns the first reply line. */
function unauthenticated(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write(`${command}\r\n`));
    let reply = '';
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.split('\r\n')[0] ?? '');
      }
    });
    socket.on('error', reject);
  });
}

async function rest(redis: ProvidedRedis, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(redis.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${redis.token}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as unknown };
}

/** The pid and port of the newest redis-server the wrapper saw start. */
function lastStart(): { pid: number; port: number; argv: string } {
  const starts = readFileSync(argvLog, 'utf8')
    .split(/^pid /m)
    .filter((entry) => entry !== '');
  const argv = starts.at(-1) ?? '';
  const lines = argv.split('\n');
  const portIndex = lines.indexOf('--port');
  return { pid: Number(lines[0]), port: Number(lines[portIndex + 1]), argv };
}

describe('the launcher redis-server', () => {
  let stack: Teardown;
  let first: ProvidedRedis;
  const key = `launcher-redis:${randomUUID()}`;

  beforeAll(async () => {
    stack = createTeardown();
    first = await provideRedis({}, dataDir, stack, () => undefined);
  });

  afterAll(async () => {
    await stack?.run();
  });

  it('refuses a client that does not authenticate (NOAUTH), while the proxy reaches it', async () => {
    const { port } = lastStart();
    expect(await unauthenticated(port, 'PING')).toMatch(/^-NOAUTH/);
    expect(await unauthenticated(port, 'CONFIG GET requirepass')).toMatch(/^-NOAUTH/);
    expect(await rest(first, ['ping'])).toEqual({ status: 200, json: { result: 'PONG' } });
    expect(await rest(first, ['set', key, 'kept'])).toEqual({ status: 200, json: { result: 'OK' } });
  });

  it('keeps the password in the data folder, mode 0600, and off every command line', async () => {
    const file = join(dataDir, 'redis', 'password');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = readFileSync(file, 'utf8').trim();
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    const { pid, argv } = lastStart();
    expect(argv).not.toContain(password);
    expect(argv).not.toContain('requirepass');
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(password);
    expect(readFileSync(`/proc/${process.pid}/cmdline`, 'utf8')).not.toContain(password);
  });

  it('cannot MIGRATE keys to another host, not even from a script', async () => {
    const migrate = ['migrate', '127.0.0.2', bystander.port, key, 0, 1000];
    expect(await rest(first, ['eval', `return redis.call('${migrate.join("','")}')`, 0])).toMatchObject({ status: 400 });
    expect(bystander.accepted).toBe(0);
    expect(await rest(first, ['get', key])).toEqual({ status: 200, json: { result: 'kept' } });
  });

  it('reuses the same password on the next start, and the data with it', async () => {
    const password = readFileSync(join(dataDir, 'redis', 'password'), 'utf8');
    await stack.run();
    stack = createTeardown();
    const second = await provideRedis({}, dataDir, stack, () => undefined);
    expect(readFileSync(join(dataDir, 'redis', 'password'), 'utf8')).toBe(password);
    expect(await unauthenticated(lastStart().port, 'PING')).toMatch(/^-NOAUTH/);
    expect(await rest(second, ['get', key])).toEqual({ status: 200, json: { result: 'kept' } });
  });
});

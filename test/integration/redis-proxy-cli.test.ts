// `npm run redis-proxy` takes its token from a file or the environment, so no secret shows on its command line.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';

const CLI = join(import.meta.dirname, '../../local/emulators/upstash/cli.ts');
const TSX = join(import.meta.dirname, '../../node_modules/.bin/tsx');

let folder: string;
let child: ChildProcess | undefined;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'redis-proxy-cli-'));
});

afterEach(async () => {
  if (child !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  child = undefined;
});

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** Starts the CLI and waits for the URL line it prints; `out` collects everything it prints. */
async function startCli(args: string[], env: Record<string, string> = {}): Promise<{ url: string; out: () => string }> {
  let out = '';
  const started = spawn(TSX, [CLI, '--redis', inject('redisUrl'), '--port', '0', ...args], {
    env: { ...process.env, UPSTASH_REDIS_REST_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = started;
  started.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  started.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the CLI printed no URL: ${out}`)), 20_000);
    const check = (): void => {
      const match = /UPSTASH_REDIS_REST_URL=(\S+)/.exec(out);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    started.stdout.on('data', check);
    started.once('exit', () => reject(new Error(`the CLI exited: ${out}`)));
  });
  return { url, out: () => out };
}

async function ping(url: string, token: string): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '["ping"]' });
  return response.status;
}

/** The command lines of the CLI process and everything it started (tsx runs node under it). */
function commandLines(pid: number): string {
  const lines: string[] = [];
  const visit = (current: number): void => {
    try {
      lines.push(readFileSync(`/proc/${current}/cmdline`, 'utf8').replaceAll('\0', ' '));
      const children = readFileSync(`/proc/${current}/task/${current}/children`, 'utf8').trim();
      for (const next of children === '' ? [] : children.split(' ')) visit(Number(next));
    } catch {
      // gone meanwhile
    }
  };
  visit(pid);
  return lines.join('\n');
}

describe('redis-proxy CLI', () => {
  it('reads the token from --token-file, keeps it off every command line and never prints it', async () => {
    const token = randomBytes(24).toString('base64url');
    const file = join(folder, 'token');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    const cli = await startCli(['--token-file', file]);
    expect(await ping(cli.url, token)).toBe(200);
    expect(await ping(cli.url, 'wrong')).toBe(401);
    const lines = commandLines(child?.pid ?? 0);
    expect(lines).toContain('--token-file');
    expect(lines).not.toContain(token);
    expect(cli.out()).not.toContain(token);
  });

  it('reads the token from UPSTASH_REDIS_REST_TOKEN', async () => {
    const token = randomBytes(24).toString('base64url');
    const cli = await startCli([], { UPSTASH_REDIS_REST_TOKEN: token });
    expect(await ping(cli.url, token)).toBe(200);
    expect(commandLines(child?.pid ?? 0)).not.toContain(token);
    expect(cli.out()).not.toContain(token);
  });

  it('refuses admin commands unless --allow-admin is given', async () => {
    const token = randomBytes(24).toString('base64url');
    const plain = await startCli([], { UPSTASH_REDIS_REST_TOKEN: token });
    const config = { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '["config","get","maxmemory"]' };
    expect((await fetch(plain.url, config)).status).toBe(400);
    child?.kill('SIGTERM');
    await new Promise((resolve) => child?.once('exit', resolve));
    const admin = await startCli(['--allow-admin'], { UPSTASH_REDIS_REST_TOKEN: token });
    expect((await fetch(admin.url, config)).status).toBe(200);
  });
});

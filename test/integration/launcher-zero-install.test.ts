// `npm start` on a machine with Node alone: no redis-server on PATH, no REDIS_URL, no DATABASE_URL. The embedded Redis
// engine and the embedded PostgreSQL come up, the printed walkthrough works pasted into bash, and an invite made before
// a restart is still listed after it.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/launcher/data-dir.ts';
import { EMBEDDED_SNAPSHOT_FILE } from '../../local/launcher/redis.ts';
import {
  baseEnv,
  call,
  launch,
  portIsClosed,
  printed,
  stagingRoot,
  stop,
  stopAll,
  whenReady,
  type Launched,
} from '../support/launcher-process.ts';
import { pathWithout, type StrippedPath } from '../support/path-without.ts';
import { quietPort } from '../support/quiet-port.ts';

const run = promisify(execFile);
const running: Launched[] = [];
const cleanups: Array<() => void> = [];

afterEach(async () => {
  const staged = running.map((launched) => stagingRoot(launched.output()));
  await stopAll(running);
  for (const dir of staged) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('npm start with only Node', () => {
  it('runs the embedded Redis engine and PostgreSQL, says so, serves the walkthrough, and keeps an invite across a restart', async () => {
    const stripped: StrippedPath = pathWithout(['redis-server']);
    cleanups.push(stripped.remove);
    const dataDir = mkdtempSync(join(tmpdir(), 'runstate-zero-install-'));
    // As root the embedded PostgreSQL runs as `postgres`, which must pass through (not list) this folder.
    chmodSync(dataDir, 0o711);
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const port = await quietPort();
    const env = {
      ...baseEnv({ PORT: String(port), RUNSTATE_DATA_DIR: dataDir, RUNSTATE_CRON_INTERVAL_SECONDS: '0' }),
      PATH: stripped.path,
    };
    // The machine really lacks it: the launcher's own probe would find none on this PATH.
    await expect(run('sh', ['-c', 'command -v redis-server'], { env })).rejects.toThrow();

    const first = launch(env, running);
    const banner = await whenReady(first, 90_000);
    expect(banner).toContain('no redis-server on PATH: starting the embedded Redis engine');
    const redisLine = banner.split('\n').find((line) => line.startsWith('  Redis '));
    expect(redisLine).toMatch(
      /^ {2}Redis +js-redis-server \d+\.\d+\.\d+ \(redis-6\.2 profile\), embedded in this process on 127\.0\.0\.1:\d+/,
    );
    expect(redisLine).toContain(`saved to ${join(dataDir, 'redis', EMBEDDED_SNAPSHOT_FILE)} on stop`);
    expect(banner).toMatch(/stops everything this launcher started, then exits 0: .*Redis REST proxy, embedded Redis\./);
    const base = `http://127.0.0.1:${port}`;
    const health = await fetch(`${base}/healthz`);
    // The embedded engine's INFO memory names no maxmemory_policy: health says unknown rather than guess.
    expect({ status: health.status, json: await health.json() }).toEqual({
      status: 200,
      json: { status: 'ok', redis: 'ok', revocation: 'ok', postgres: 'ok', eviction: { redis: 'unknown', revocation: 'unknown' } },
    });

    // The printed lines, pasted into bash as a newcomer would, on the same PATH without redis-server.
    const script = /^BASE=[\s\S]*?\n\n/m.exec(banner)?.[0];
    expect(script).toBeDefined();
    const { stdout } = await run('bash', ['-c', script as string], {
      cwd: REPO_ROOT,
      env: { ...baseEnv({}), PATH: stripped.path },
      timeout: 60_000,
    });
    // The demo tenant resolved by slug and by domain, then the same walkthrough as launcher.test.ts.
    expect([...stdout.matchAll(/^HTTP (\d{3})$/gm)].map((m) => m[1])).toEqual([
      '200',
      '200',
      '200',
      '200',
      '200',
      '201',
      '200',
      '200',
      '200',
      '404',
      '204',
      '200',
      '200',
      '200',
      '204',
      '202',
      '400',
      '200',
    ]);
    expect(stdout).toMatch(/^\{"test":"ok","session":"acquired"\}$/m);
    expect(stdout).toMatch(/^RESET_TOKEN=rsp_[A-Za-z0-9_-]{43}$/m);

    const org = printed(banner, 'ORG');
    const adminToken = printed(banner, 'ADMIN_TOKEN');
    const created = await call('POST', `${base}/orgs/${org}/invites`, adminToken, {
      email: 'kept.embedded@demo.runstate.test',
      roleCode: 'Viewer',
    });
    expect(created.status).toBe(201);
    const { invite } = created.json as { invite: { inviteId: string } };
    expect(await stop(first)).toBe(0);
    expect(await portIsClosed(port)).toBe(true);
    expect(first.output()).toMatch(/stopped Redis REST proxy\nstopped embedded Redis\n/);
    const snapshot = join(dataDir, 'redis', EMBEDDED_SNAPSHOT_FILE);
    expect(existsSync(snapshot)).toBe(true);
    expect(statSync(snapshot).mode & 0o777).toBe(0o600);

    const second = launch(env, running);
    const secondBanner = await whenReady(second, 90_000);
    expect(secondBanner).toMatch(/^embedded Redis: restored \d+ keys from /m);
    const listed = await call('GET', `${base}/orgs/${org}/invites`, adminToken);
    expect(listed.status).toBe(200);
    expect((listed.json as { invites: Array<{ inviteId: string }> }).invites.map((i) => i.inviteId)).toEqual([invite.inviteId]);
    expect(await stop(second)).toBe(0);
  }, 240_000);
});

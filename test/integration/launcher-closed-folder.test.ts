// `npm start` as root from a checkout inside a folder closed to others: PostgreSQL is staged where `postgres` can reach it.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/launcher/data-dir.ts';
import { baseEnv, call, launch, portIsClosed, printed, stop, stopAll, whenReady, type Launched } from '../support/launcher-process.ts';
import { quietPort } from '../support/quiet-port.ts';

/** What the launcher reads from a checkout; hard links, since node resolves symlinks to their (open) real paths. */
const CHECKOUT_PARTS = ['package.json', 'tsconfig.json', 'functions', 'lib', 'local', 'ops', 'migrations', 'types', 'node_modules'];
const STAGING_LINE = /^staging PostgreSQL in (\/\S+)\/ (.*)$/m;

const run = promisify(execFile);
const running: Launched[] = [];
const cleanUp: string[] = [];

afterAll(async () => {
  await stopAll(running);
  for (const dir of cleanUp.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of this checkout inside a 0700 folder (like /root or `mktemp -d`), on the same filesystem so `cp -al` works. */
function closedCheckout(): string {
  mkdirSync(join(REPO_ROOT, '.data'), { recursive: true, mode: 0o711 });
  const closed = mkdtempSync(join(REPO_ROOT, '.data', 'closed-'));
  cleanUp.push(closed);
  chmodSync(closed, 0o700);
  const checkout = join(closed, 'runstate');
  mkdirSync(checkout);
  execFileSync('cp', ['-al', ...CHECKOUT_PARTS.map((part) => join(REPO_ROOT, part)), checkout]);
  return checkout;
}

function stagingLine(output: string): { root: string; rest: string } {
  const match = STAGING_LINE.exec(output);
  if (match === null) throw new Error(`no "staging PostgreSQL in" line:\n${output}`);
  return { root: match[1] as string, rest: match[2] as string };
}

async function query<T>(checkout: string, sql: string): Promise<T[]> {
  // The port and password stay in the checkout's data folder, readable only by us.
  const stateFile = join(checkout, '.data', 'pg.json');
  expect(statSync(stateFile).mode & 0o777).toBe(0o600);
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { port: number; password: string };
  const client = new pg.Client({ host: '127.0.0.1', port: state.port, user: 'postgres', password: state.password, database: 'runstate' });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe.runIf(process.getuid?.() === 0)('npm start as root in a folder closed to others', () => {
  it('stages PostgreSQL outside the checkout, serves, and reuses the staged cluster and its data on the next start', async () => {
    const checkout = closedCheckout();
    const port = await quietPort();
    const env = baseEnv({ PORT: String(port) });

    const first = launch(env, running, checkout);
    const banner = await whenReady(first, 90_000);
    const staged = stagingLine(banner);
    cleanUp.push(staged.root);
    expect(staged.root.startsWith(join(tmpdir(), 'runstate-pg-'))).toBe(true);
    expect(staged.rest).toMatch(/copied/);
    expect(staged.rest).toContain(`because ${join(checkout, '..')} is closed to the \`postgres\` user`);
    expect(banner.match(/^staging PostgreSQL/gm)).toHaveLength(1);

    // The data folder: 0700, owned by postgres; the binaries: root's, not writable by postgres. The banner says where.
    const postgresUid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const data = statSync(join(staged.root, 'data'));
    expect([data.uid, data.mode & 0o777]).toEqual([postgresUid, 0o700]);
    expect(banner).toContain(`data in ${join(staged.root, 'data')}`);
    const server = execFileSync('find', [staged.root, '-name', 'postgres', '-path', '*/bin/*'], { encoding: 'utf8' }).trim();
    expect(statSync(server).uid).toBe(0);
    expect(statSync(server).mode & 0o022).toBe(0);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await health.json()).toEqual({
      status: 'ok',
      redis: 'ok',
      revocation: 'ok',
      postgres: 'ok',
      eviction: { redis: 'noeviction', revocation: 'noeviction' },
    });
    const org = printed(banner, 'ORG');
    const adminToken = printed(banner, 'ADMIN_TOKEN');
    await query(checkout, `CREATE TABLE kept (note text); INSERT INTO kept VALUES ('from the first start')`);

    expect(await stop(first)).toBe(0);
    expect(await portIsClosed(port)).toBe(true);
    expect(existsSync(join(staged.root, 'data', 'postmaster.pid'))).toBe(false);

    // Second start: the same staging, nothing copied or initialised again, the row and the seeded tenant are there.
    const second = launch(env, running, checkout);
    const secondBanner = await whenReady(second, 60_000);
    const again = stagingLine(secondBanner);
    expect(again.root).toBe(staged.root);
    expect(again.rest).toMatch(/reused/);
    expect(again.rest).not.toMatch(/copied/);
    expect(secondBanner).not.toContain('initialising');
    expect(printed(secondBanner, 'ORG')).toBe(org);
    expect(await query(checkout, 'SELECT note FROM kept')).toEqual([{ note: 'from the first start' }]);
    expect((await call('GET', `http://127.0.0.1:${port}/orgs/${org}/invites`, adminToken)).status).toBe(200);
    // `npm run seed` beside it finds the running staged cluster (its progress goes to stderr).
    const seeded = await run(join(checkout, 'node_modules', '.bin', 'tsx'), ['local/launcher/seed-cli.ts', '--json'], {
      cwd: checkout,
      env,
    });
    expect(JSON.parse(seeded.stdout)).toMatchObject({ organizationId: org });
    expect(seeded.stderr).toContain(`staging PostgreSQL in ${staged.root}/ (binaries reused, data folder reused)`);
    expect(seeded.stderr).toContain('reusing the embedded PostgreSQL already running');
    expect(await stop(second)).toBe(0);
    expect(existsSync(join(staged.root, 'data', 'postmaster.pid'))).toBe(false);
  }, 180_000);
});

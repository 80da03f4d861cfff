// `npm start` end to end: spawn the launcher, follow the lines it prints (sign-in, invites, then the Syrve demo), seed
// again, stop and restart it.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis as IORedis } from 'ioredis';
import { decodeJwt } from 'jose';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { verifyPassword } from '../../lib/auth/password.ts';
import { READY_PREFIX, STOP_PREFIX } from '../../local/launcher/banner.ts';
import { REPO_ROOT } from '../../local/launcher/data-dir.ts';
import { DEMO } from '../../local/launcher/seed.ts';
import { DEMO_SYRVE } from '../../local/launcher/seed-syrve.ts';
import { readMailbox } from '../../local/mailbox/folder-mailbox.ts';
import { quietPort } from '../support/quiet-port.ts';
import {
  baseEnv,
  call,
  interrupt,
  launch,
  portIsClosed,
  printed,
  stagingRoot,
  stop,
  stopAll,
  whenReady,
  type Launched,
} from '../support/launcher-process.ts';

const run = promisify(execFile);

const running: Launched[] = [];
const dataDirs: string[] = [];

afterEach(async () => {
  // From a checkout closed to `postgres` (as root), the launcher stages PostgreSQL under the temp folder: that goes too.
  const staged = running.map((launched) => stagingRoot(launched.output()));
  await stopAll(running);
  for (const dir of [...dataDirs.splice(0), ...staged]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** POST /auth/login as a client would send it. */
async function login(base: string, body: { organizationId: string; email: string; password: string }) {
  const response = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as { accessToken?: string; error?: { code: string } } };
}

/** Every form a password could leak in: plain, base64, base64url, URL-encoded, hex. */
function leakForms(secret: string): string[] {
  const base64 = Buffer.from(secret).toString('base64');
  return [secret, base64, Buffer.from(secret).toString('base64url'), encodeURIComponent(secret), Buffer.from(secret).toString('hex')];
}

/** Every key and value of the Redis, and every row of every table of the database, as one text. */
async function everythingStored(redisUrl: string, databaseUrl: string): Promise<string> {
  const parts: string[] = [];
  const redis = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    for (const key of await redis.keys('*')) {
      parts.push(key);
      const type = await redis.type(key);
      if (type === 'string') parts.push((await redis.get(key)) ?? '');
      if (type === 'zset') parts.push((await redis.zrange(key, 0, -1, 'WITHSCORES')).join(' '));
      if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      if (type === 'list') parts.push((await redis.lrange(key, 0, -1)).join(' '));
      if (type === 'set') parts.push((await redis.smembers(key)).join(' '));
    }
  } finally {
    await redis.quit();
  }
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const tables = await db.query<{ name: string }>(
      "SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    for (const { name } of tables.rows)
      parts.push(...(await db.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t`)).rows.map((r) => r.row));
  } finally {
    await db.end();
  }
  return parts.join('\n');
}

async function adminPasswordHash(databaseUrl: string): Promise<string | null> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const rows = await db.query('SELECT password_hash FROM users WHERE email = $1', ['admin@demo.runstate.test']);
    return rows.rows[0]?.password_hash ?? null;
  } finally {
    await db.end();
  }
}

/** Pastes the walkthrough a banner prints into bash, as printed, in a shell with nothing of the launcher's environment. */
async function pasteWalkthrough(banner: string): Promise<string> {
  const script = /^BASE=[\s\S]*?\n\n/m.exec(banner)?.[0];
  expect(script).toBeDefined();
  // Only for this test: the new password the script made up, to look for it where it must not be.
  const reveal = `${script as string}printf 'NEW_PW=%s\\n' "$NEW_PW"\n`;
  const { stdout } = await run('bash', ['-c', reveal], { cwd: REPO_ROOT, env: baseEnv({}), timeout: 60_000 });
  return stdout;
}

/** Every step of the walkthrough answered what its line says it answers (local/launcher/banner.ts), in order. */
function expectAnsweredAsPrinted(curlOut: string, connection: string): void {
  // The tenant resolved by slug and by domain; sign-in, the list with its token, refresh; the invite, the list, the
  // accept and its retry, the refused cancel; the receiver's secret and the role change; the Syrve test and stores, the
  // fake's new password; the reset link and the breached password; the operator's read.
  expect([...curlOut.matchAll(/^HTTP (\d{3})$/gm)].map((m) => m[1])).toEqual([
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
  expect(curlOut).toContain('"slug":"demo","state":"active","displayName":"Demo Restaurant Group"');
  const issued = [
    ...curlOut.matchAll(/^\{"status":"signed-in","tokenType":"Bearer","accessToken":"([^"]+)",[^\n]*"refreshToken":"(rsr_[^"]+)"/gm),
  ];
  expect(issued).toHaveLength(2);
  const [signedIn, refreshed] = issued.map((m) => ({ claims: decodeJwt(m[1]!), refreshToken: m[2]! }));
  expect(signedIn!.claims).toMatchObject({ sub: DEMO.adminUserId, email: 'admin@demo.runstate.test' });
  expect(signedIn!.claims.exp! - signedIn!.claims.iat!).toBe(900);
  // The refresh rotated the refresh token and kept the session.
  expect(refreshed!.refreshToken).not.toBe(signedIn!.refreshToken);
  expect(refreshed!.claims.sid).toBe(signedIn!.claims.sid);
  expect(curlOut).toMatch(/^INVITE_TOKEN=rsi_\S+$/m);
  // The accept and its retry: the same grant, twice.
  const granted = `{"organizationId":"${DEMO.organizationId}","locationId":"${DEMO.locationId}","roleCode":"Accountant"}`;
  expect(curlOut.split('\n').filter((line) => line === granted)).toHaveLength(2);
  expect(curlOut).toMatch(/^\{"error":\{"code":"NOT_FOUND",/m);
  expect(curlOut).toMatch(/^\{"test":"ok","session":"(acquired|cached)"\}$/m);
  expect(curlOut).toMatch(/^\{"stores":\[\{[^\n]*"name":"Main store"[^\n]*\],"session":"cached"\}$/m);
  expect(curlOut).toMatch(/^HTTP 200 {2}webhook-id \S+$/m);
  expect(curlOut).toContain(`{"connectionId":"${connection}","test":"ok"}`);
  // The reset link landed in the dev mailbox folder, and the pasted line read its token from there.
  expect(curlOut).toMatch(/^RESET_TOKEN=rsp_[A-Za-z0-9_-]{43}$/m);
  expect(curlOut).toMatch(/^\{"error":\{"code":"PASSWORD_BREACHED",/m);
  expect(curlOut).toContain(`{"organizationId":"${DEMO.organizationId}","limits":[`);
}

/** What the walkthrough changes in the demo tenant, and the audit rows of npm start putting it back. */
async function demoState(databaseUrl: string) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query(
      `SELECT (SELECT count(*)::int FROM webhook_endpoints WHERE organization_id = $1) AS endpoints,
              (SELECT count(*)::int FROM role_assignments r JOIN users u ON u.id = r.user_id
                WHERE u.email = $3 AND r.organization_id = $1) AS "newcomerRoles",
              (SELECT count(*)::int FROM role_assignments r JOIN users u ON u.id = r.user_id
                WHERE u.email = $4 AND r.organization_id = $1) AS "mailedNewcomerRoles",
              (SELECT count(*)::int FROM audit_events a JOIN users u ON u.id = a.target_id
                WHERE a.action = 'member.removed' AND a.organization_id = $1 AND a.actor_user_id = $2 AND u.email = $3) AS removals,
              (SELECT count(*)::int FROM audit_events
                WHERE action = 'webhook.endpoint_deleted' AND organization_id = $1 AND actor_user_id = $2) AS "endpointDeletions"`,
      [DEMO.organizationId, DEMO.adminUserId, DEMO.inviteeEmail, 'mailed.newcomer@demo.runstate.test'],
    );
    return rows[0] as {
      endpoints: number;
      newcomerRoles: number;
      mailedNewcomerRoles: number;
      removals: number;
      endpointDeletions: number;
    };
  } finally {
    await db.end();
  }
}

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runstate-launcher-'));
  // As root the embedded PostgreSQL runs as `postgres`, which must pass through (not list) this folder.
  chmodSync(dir, 0o711);
  dataDirs.push(dir);
  return dir;
}

describe('npm start with REDIS_URL and DATABASE_URL', () => {
  it('prints a flow that works: sign-in and refresh, invites, then the Syrve test, stores and rotation; seeding repeats; SIGTERM stops it; a restart through npm keeps the password and the connection working, and Ctrl-C stops it with exit 0', async () => {
    const dataDir = newDataDir();
    const port = await quietPort();
    const databaseUrl = inject('databaseUrl');
    const env = baseEnv({ REDIS_URL: inject('redisUrl'), DATABASE_URL: databaseUrl, PORT: String(port), RUNSTATE_DATA_DIR: dataDir });
    const launcher = launch(env, running);
    const banner = await whenReady(launcher);

    const base = printed(banner, 'BASE');
    const org = printed(banner, 'ORG');
    const location = printed(banner, 'LOCATION');
    const adminToken = printed(banner, 'ADMIN_TOKEN');
    const newcomerToken = printed(banner, 'NEWCOMER_TOKEN');
    const adminPassword = printed(banner, 'ADMIN_PASSWORD');
    expect(base).toBe(`http://127.0.0.1:${port}`);
    // The dev demo password is printed twice (the tenant's summary, the walkthrough's variable), and said to be kept.
    const passwordLines = [
      `  password      ${adminPassword}  (the dev demo password: DEMO_ADMIN_PASSWORD, kept in ${join(dataDir, 'dev-secrets.json')})`,
      `ADMIN_PASSWORD=${adminPassword}`,
    ];
    for (const line of passwordLines) expect(banner.split('\n')).toContain(line);
    expect(banner).toContain('Sign-in issues 15-minute access tokens');
    // The console's dev link signs the demo admin in, once.
    const consoleLink = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/console\/dev-login\?code=rsd_[A-Za-z0-9_-]{43})$/m.exec(banner)?.[1];
    expect(consoleLink).toBeDefined();
    const opened = await fetch(consoleLink!, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.getSetCookie().map((cookie) => cookie.split('=')[0])).toEqual(
      expect.arrayContaining(['rs_console_access', 'rs_console_refresh']),
    );
    expect((await fetch(consoleLink!, { redirect: 'manual' })).status).toBe(401);
    expect(await verifyPassword(adminPassword, await adminPasswordHash(databaseUrl))).toBe(true);

    const created = await call('POST', `${base}/orgs/${org}/invites`, adminToken, {
      email: 'newcomer@demo.runstate.test',
      roleCode: 'Accountant',
      locationId: location,
    });
    expect(created.status).toBe(201);
    const { invite, token: inviteToken } = created.json as { invite: { inviteId: string }; token: string };

    const listed = await call('GET', `${base}/orgs/${org}/invites`, adminToken);
    expect(listed.status).toBe(200);
    expect((listed.json as { invites: Array<{ inviteId: string }> }).invites.map((i) => i.inviteId)).toContain(invite.inviteId);

    const accepted = await call('POST', `${base}/invites/accept`, newcomerToken, { token: inviteToken });
    expect(accepted).toEqual({ status: 200, json: { organizationId: org, locationId: location, roleCode: 'Accountant' } });
    const again = await call('POST', `${base}/invites/accept`, newcomerToken, { token: inviteToken });
    expect(again).toEqual(accepted);

    // The newcomer really holds the role now, in the database the launcher was given.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const roles = await db.query(
      `SELECT r.role_code, r.location_id FROM role_assignments r JOIN users u ON u.id = r.user_id WHERE u.email = $1 AND r.organization_id = $2`,
      ['newcomer@demo.runstate.test', org],
    );
    await db.end();
    expect(roles.rows).toEqual([{ role_code: 'Accountant', location_id: location }]);

    // The curl lines, pasted into bash as printed, give the same story, then test the demo Syrve connection, list its
    // stores and rotate its password; a shell with nothing of the launcher's environment, so the lines carry what they need.
    const connection = printed(banner, 'CONNECTION');
    const upstream = printed(banner, 'SYRVE_FAKE');
    expect(connection).toBe(DEMO_SYRVE.connectionId);
    expect(upstream).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const curlOut = await pasteWalkthrough(banner);
    expectAnsweredAsPrinted(curlOut, connection);
    // The role change's delivery reached the receiver npm start runs on loopback, which verified it with the package and
    // printed it; the endpoint's secret went to it through a pipe and is printed nowhere.
    await expect
      .poll(() => launcher.output(), { timeout: 10_000 })
      .toMatch(/^webhook received: msg_[0-9a-f]{32}, verified with standardwebhooks$/m);
    expect(launcher.output()).toMatch(/"type": ?"member.role_changed"/);
    expect(`${launcher.output()}${curlOut}`).not.toMatch(/whsec_[A-Za-z0-9+/]{20}/);
    // The password the banner offers to try is refused by the fake range API npm start runs on loopback.
    expect(banner).toMatch(/^ {2}Breaches +fake breached-password range API on http:\/\/127\.0\.0\.1:\d+\/range\/ \(fail-open\)/m);
    // The first call to the connection logged in upstream.
    expect(curlOut).toMatch(/^\{"test":"ok","session":"acquired"\}$/m);
    const newPassword = /^NEW_PW=([0-9a-f]{32})$/m.exec(curlOut)?.[1] as string;
    expect(newPassword).toBeDefined();

    // The operator step: npm start made a dev operator secret (0600, the right shape) and configured its digest; the
    // pasted line read it from the file and got the organisation's rate-limit blocks.
    const operatorFile = join(dataDir, 'operator-token');
    expect(statSync(operatorFile).mode & 0o777).toBe(0o600);
    const operatorSecret = readFileSync(operatorFile, 'utf8').trim();
    expect(operatorSecret).toMatch(/^rsop_[A-Za-z0-9_-]{43}$/);
    expect(banner).toMatch(/^ {2}Operators +operator "dev", its secret in \S+operator-token \(0600/m);

    // The walkthrough is kept, 0600, exactly as printed (from the ready line to the Ctrl-C line), and the banner says where.
    const walkthroughFile = join(dataDir, 'walkthrough.txt');
    expect(statSync(walkthroughFile).mode & 0o777).toBe(0o600);
    const kept = readFileSync(walkthroughFile, 'utf8');
    const printedWalkthrough = new RegExp(`^${READY_PREFIX}[\\s\\S]*?\\n${STOP_PREFIX}[^\\n]*\\n`, 'm').exec(launcher.output())?.[0];
    expect(kept).toBe(printedWalkthrough);
    expect(banner).toContain(`This text is kept in ${walkthroughFile} (0600: it holds the demo tokens and password) until the next start.`);
    expect(banner).toMatch(
      /^Ctrl-C \(or SIGTERM\) stops everything this launcher started, then exits 0: .*A second Ctrl-C while it stops exits 1 at once\.$/m,
    );
    // The invitee's summary names the steps that invite and admit them, in the order printed.
    const [, invitedAt, memberAt] =
      /^ {2}invitee +newcomer@demo\.runstate\.test {2}\(invited in step (\d+), a member from step (\d+) on\)$/m.exec(banner) ?? [];
    expect(banner).toMatch(new RegExp(`^# ${invitedAt}\\. The admin invites newcomer@`, 'm'));
    expect(banner).toMatch(new RegExp(`^# ${memberAt}\\. The newcomer accepts with the invite token`, 'm'));

    // Secrets: kept 0600 in the data folder, and none of them (nor the rotated password) is ever printed.
    const secretsFile = join(dataDir, 'dev-secrets.json');
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, string>;
    expect(Object.keys(secrets).sort()).toEqual([
      'AUTH_JWT_SECRET',
      'DEMO_ADMIN_PASSWORD',
      'INDEX_HASH_KEY',
      'SECRETS_KEYS',
      'SYRVE_DEMO_PASSWORD',
      'WEBHOOK_SECRET',
    ]);
    // The demo password is the one printed, and it appears in those two banner lines only: not in any log line.
    const { DEMO_ADMIN_PASSWORD: keptPassword, ...neverPrinted } = secrets;
    expect(keptPassword).toBe(adminPassword);
    const outputWithoutBanner = passwordLines.reduce((text, line) => text.replace(`${line}\n`, ''), launcher.output());
    expect(outputWithoutBanner).not.toContain(adminPassword);
    for (const value of [...Object.values(neverPrinted), newPassword, operatorSecret]) {
      expect(launcher.output()).not.toContain(value);
      expect(kept).not.toContain(value);
      expect(curlOut.replace(`NEW_PW=${newPassword}`, '')).not.toContain(value);
    }
    expect(launcher.output()).not.toContain(secrets.SECRETS_KEYS!.slice('dev:'.length));
    expect(launcher.output()).not.toContain(secrets.WEBHOOK_SECRET!.slice('whsec_'.length));

    // An emailed invitation: npm start set INVITE_LINK_BASE to its own invite page and delivered to the mailbox folder,
    // the one place the token is (not the answer, the output, Redis or PostgreSQL); the link joins a newcomer.
    const emailed = await call('POST', `${base}/orgs/${org}/invites`, adminToken, {
      email: 'mailed.newcomer@demo.runstate.test',
      roleCode: 'Viewer',
      delivery: 'email',
    });
    expect(emailed.status).toBe(201);
    expect(emailed.json).toMatchObject({ delivery: 'sent' });
    expect(emailed.json).not.toHaveProperty('token');
    const mailed = (await readMailbox(join(dataDir, 'mailbox'))).filter((m) => m.to === 'mailed.newcomer@demo.runstate.test');
    expect(mailed).toHaveLength(1);
    const mailedLink = /(\S+)#token=(rsi_\S+)/.exec(mailed[0]!.text);
    expect(mailedLink?.[1]).toBe(`${base}/invites/accept`);
    const mailedToken = mailedLink![2]!;
    expect((await fetch(mailedLink![1]!)).status).toBe(200);
    const joined = await fetch(`${base}/invites/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: mailedToken, password: `newcomer-${Date.now()}-pw` }),
    });
    expect(joined.status).toBe(201);
    const joinedText = await joined.text();
    const afterInvite = await everythingStored(inject('redisUrl'), databaseUrl);
    for (const haystack of [JSON.stringify(emailed.json), joinedText, launcher.output(), afterInvite])
      expect(leakForms(mailedToken).filter((form) => haystack.includes(form))).toEqual([]);

    // Nowhere in Redis or PostgreSQL but as its KDF hash (positive controls: the scan reads the users' hashes, and finds a
    // password planted in Redis in any of its forms).
    const stored = await everythingStored(inject('redisUrl'), databaseUrl);
    expect(stored).toContain((await adminPasswordHash(databaseUrl)) as string);
    expect(leakForms(adminPassword).filter((form) => stored.includes(form))).toEqual([]);
    const control = new IORedis(inject('redisUrl'), { lazyConnect: true, maxRetriesPerRequest: 1 });
    await control.connect();
    await control.set(`positive-control:${Buffer.from(adminPassword).toString('base64')}`, 'x', 'EX', 60);
    const planted = await everythingStored(inject('redisUrl'), databaseUrl);
    await control.del(`positive-control:${Buffer.from(adminPassword).toString('base64')}`);
    await control.quit();
    expect(leakForms(adminPassword).filter((form) => planted.includes(form))).toContain(Buffer.from(adminPassword).toString('base64'));

    // Seeding alone: idempotent, one JSON object on stdout (with the dev password), its token signed with the same dev
    // secret; the password it finds stored already verifies, so the hash stays as it is.
    const seedEnv = { ...env, PORT: '' };
    const seed = async (extra: Record<string, string> = {}) => {
      const { stdout, stderr } = await run('npx', ['tsx', 'local/launcher/seed-cli.ts', '--json'], {
        cwd: REPO_ROOT,
        env: { ...seedEnv, ...extra },
        timeout: 30_000,
      });
      expect(stdout.trim().split('\n')).toHaveLength(1);
      type Seeded = {
        organizationId: string;
        locationId: string;
        admin: { userId: string; email: string; token: string; password?: string };
      };
      return { json: JSON.parse(stdout) as Seeded, stderr };
    };
    const hashAtStart = await adminPasswordHash(databaseUrl);
    const seeds = [(await seed()).json, (await seed()).json];
    expect(seeds[0]).toMatchObject({
      organizationId: org,
      locationId: location,
      admin: { email: 'admin@demo.runstate.test', password: adminPassword },
    });
    expect({ ...seeds[1], admin: { ...seeds[1]!.admin, token: '' } }).toEqual({ ...seeds[0], admin: { ...seeds[0]!.admin, token: '' } });
    expect((await call('GET', `${base}/orgs/${org}/invites`, seeds[1]!.admin.token)).status).toBe(200);
    expect(await adminPasswordHash(databaseUrl)).toBe(hashAtStart);

    // Another DEMO_ADMIN_PASSWORD is seeded over the stored one, and signs in; APP_ENV=test seeds none and shows none.
    const changedPassword = `changed-${Date.now()}`;
    const changed = await seed({ DEMO_ADMIN_PASSWORD: changedPassword });
    expect(changed.json.admin.password).toBe(changedPassword);
    expect(changed.stderr).toContain("set the demo admin's sign-in password");
    const changedHash = await adminPasswordHash(databaseUrl);
    expect(changedHash).not.toBe(hashAtStart);
    expect((await login(base, { organizationId: org, email: 'admin@demo.runstate.test', password: changedPassword })).status).toBe(200);
    const notDev = await seed({ APP_ENV: 'test' });
    expect(notDev.json.admin).not.toHaveProperty('password');
    expect(notDev.stderr).toContain('APP_ENV=test: no sign-in password seeded');
    expect(await adminPasswordHash(databaseUrl)).toBe(changedHash);

    expect(await stop(launcher)).toBe(0);
    expect(await portIsClosed(port)).toBe(true);
    expect(await portIsClosed(Number(new URL(upstream).port))).toBe(true);
    expect(launcher.output()).toMatch(
      /stopped HTTP server[\s\S]*stopped fake Syrve upstream[\s\S]*stopped Neon proxy[\s\S]*stopped Redis REST proxy/,
    );

    // What the restart is to put back, counted before it: the walkthrough's removals so far, and the endpoints now.
    const removalsBefore = await demoState(databaseUrl);
    expect(removalsBefore.endpoints).toBe(1);

    // Restarted: the same connection on the same fake port, which learns the rotated password from the row (it was only
    // told over its account route, which a restart forgets), so the test passes with no step of the walkthrough repeated.
    // This time as a person runs it, `npm start` in a terminal, stopped below with Ctrl-C.
    const restarted = launch(env, running, REPO_ROOT, { viaNpm: true });
    const secondBanner = await whenReady(restarted);
    // The data folder's password again: seeded back over the changed one, and it signs in; the changed one no longer does.
    expect(printed(secondBanner, 'ADMIN_PASSWORD')).toBe(adminPassword);
    expect(secondBanner).toContain("set the demo admin's sign-in password");
    const signedInAgain = await login(base, { organizationId: org, email: 'admin@demo.runstate.test', password: adminPassword });
    expect(signedInAgain.status).toBe(200);
    expect((await call('GET', `${base}/orgs/${org}/invites`, signedInAgain.json.accessToken!)).status).toBe(200);
    const stale = await login(base, { organizationId: org, email: 'admin@demo.runstate.test', password: changedPassword });
    expect(stale).toEqual({ status: 401, json: { error: { code: 'INVALID_CREDENTIALS', message: expect.any(String) } } });
    expect(printed(secondBanner, 'CONNECTION')).toBe(connection);
    expect(printed(secondBanner, 'SYRVE_FAKE')).toBe(upstream);
    const tested = await call('POST', `${base}/orgs/${org}/syrve/connections/${connection}/test`, adminToken);
    expect(tested).toEqual({ status: 200, json: { test: 'ok', session: 'acquired' } });
    const stores = await call('GET', `${base}/orgs/${org}/syrve/connections/${connection}/stores`, adminToken);
    expect(stores).toMatchObject({ status: 200, json: { session: 'cached' } });
    const db2 = new pg.Client({ connectionString: databaseUrl });
    await db2.connect();
    const rows = await db2.query('SELECT base_url, login, credential_version FROM syrve_connections WHERE id = $1', [connection]);
    await db2.end();
    expect(rows.rows).toEqual([{ base_url: upstream, login: 'demo', credential_version: 2 }]);
    expect(restarted.output()).not.toContain(newPassword);
    // The same operator secret, made once per data folder, and the walkthrough file rewritten with this start's text.
    expect(readFileSync(operatorFile, 'utf8').trim()).toBe(operatorSecret);
    expect(readFileSync(walkthroughFile, 'utf8')).not.toBe(kept);

    // The walkthrough pasted again after the restart, which kept the database: npm start put back what the first paste
    // changed in the demo tenant (the newcomer's membership, the endpoint pointed at the last start's receiver), each
    // undo audited as the demo admin, so every step answers as printed once more.
    expect(secondBanner).toMatch(
      /^put the demo tenant back for the walkthrough \(audited, as the demo admin\): removed newcomer@demo\.runstate\.test from the demo organisation; deleted 1 webhook endpoint an earlier walkthrough made$/m,
    );
    const afterRestart = await demoState(databaseUrl);
    expect(afterRestart).toEqual({
      endpoints: 0,
      newcomerRoles: 0,
      removals: removalsBefore.removals + 1,
      endpointDeletions: removalsBefore.endpointDeletions + 1,
      // Only the demo fixtures: the newcomer who joined by the emailed link is still a member.
      mailedNewcomerRoles: 1,
    });
    const secondOut = await pasteWalkthrough(secondBanner);
    expectAnsweredAsPrinted(secondOut, connection);
    await expect
      .poll(() => restarted.output(), { timeout: 10_000 })
      .toMatch(/^webhook received: msg_[0-9a-f]{32}, verified with standardwebhooks$/m);
    expect(restarted.output()).not.toContain('NOT verified');
    expect(await demoState(databaseUrl)).toMatchObject({ endpoints: 1, newcomerRoles: 1, mailedNewcomerRoles: 1 });
    // Ctrl-C reaches the whole foreground group (npm, its shell, tsx, the launcher): a clean stop, and npm exits 0.
    expect(await interrupt(restarted)).toBe(0);
    expect(restarted.output()).toMatch(/^SIGINT: stopping$/m);
    expect(restarted.output()).toMatch(/stopped HTTP server[\s\S]*stopped Redis REST proxy/);
  }, 150_000);
});

describe('npm start with nothing configured', () => {
  it('starts redis-server and an embedded PostgreSQL in the data folder, keeps state (and the demo password) across restarts, and stops both', async () => {
    const dataDir = newDataDir();
    const port = await quietPort();
    const env = baseEnv({ PORT: String(port), RUNSTATE_DATA_DIR: dataDir });

    const first = launch(env, running);
    const banner = await whenReady(first, 60_000);
    expect(banner).toContain('initialising an embedded PostgreSQL');
    expect(banner).toContain("set the demo admin's sign-in password");
    const password = printed(banner, 'ADMIN_PASSWORD');
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      status: 'ok',
      redis: 'ok',
      revocation: 'ok',
      postgres: 'ok',
      eviction: { redis: 'noeviction', revocation: 'noeviction' },
    });
    const org = printed(banner, 'ORG');
    const adminToken = printed(banner, 'ADMIN_TOKEN');
    const created = await call('POST', `http://127.0.0.1:${port}/orgs/${org}/invites`, adminToken, {
      email: 'kept@demo.runstate.test',
      roleCode: 'Viewer',
    });
    expect(created.status).toBe(201);
    expect(await stop(first)).toBe(0);
    expect(await portIsClosed(port)).toBe(true);
    // A clean PostgreSQL shutdown removes its pid file; Redis kept its append-only file.
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    expect(existsSync(join(dataDir, 'redis', 'appendonlydir'))).toBe(true);

    // Second start on the same folder: no new cluster, same secrets (the old token still works), the invite survived in Redis.
    const second = launch(env, running);
    const secondBanner = await whenReady(second, 60_000);
    expect(secondBanner).not.toContain('initialising');
    // The same password, found stored already (not hashed again), still signs in.
    expect(printed(secondBanner, 'ADMIN_PASSWORD')).toBe(password);
    expect(secondBanner).not.toContain("set the demo admin's sign-in password");
    const signedIn = await login(`http://127.0.0.1:${port}`, { organizationId: org, email: 'admin@demo.runstate.test', password });
    expect(signedIn.status).toBe(200);
    const listed = await call('GET', `http://127.0.0.1:${port}/orgs/${org}/invites`, adminToken);
    expect(listed.status).toBe(200);
    const { invite } = created.json as { invite: { inviteId: string } };
    expect((listed.json as { invites: Array<{ inviteId: string }> }).invites.map((i) => i.inviteId)).toEqual([invite.inviteId]);
    expect(await stop(second)).toBe(0);
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 120_000);
});

describe('npm start -- --help', () => {
  it('prints the options and the environment and exits 0 starting nothing; an unknown option prints the help to stderr and exits 2', async () => {
    // A data folder that does not exist yet: starting anything would create it.
    const dataDir = join(newDataDir(), 'never-made');
    const env = baseEnv({ RUNSTATE_DATA_DIR: dataDir, PORT: String(await quietPort()) });
    for (const flag of ['--help', '-h']) {
      const { stdout } = await run('npm', ['start', '-s', '--', flag], { cwd: REPO_ROOT, env, timeout: 30_000 });
      expect(stdout).toMatch(/^Usage: npm start \[-- --help\]$/m);
      expect(stdout).toMatch(/^ {2}-h, --help +print this help and exit 0; nothing is started$/m);
      expect(stdout).toMatch(/^ {2}RUNSTATE_DATA_DIR +the data folder/m);
      expect(stdout).not.toContain(READY_PREFIX);
    }
    const refused = await run('npm', ['start', '-s', '--', '--port', '9000'], { cwd: REPO_ROOT, env, timeout: 30_000 }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(refused?.code).toBe(2);
    expect(refused?.stdout).toBe('');
    expect(refused?.stderr).toMatch(/^npm start: Unknown option '--port'/m);
    expect(refused?.stderr).toMatch(/^Usage: npm start \[-- --help\]$/m);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);
});

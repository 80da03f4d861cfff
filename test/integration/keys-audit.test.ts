// `npm run keys:audit` against a Redis of its own: clean on what the real app leaves behind (over RESP and REST),
// every planted offender found with its key redacted, nothing written (Redis's write count, the keys' DUMPs and
// MONITOR), the rate kept.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis as IORedis } from 'ioredis';
import { base32Decode, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { createKeyspace, type KeyName } from '../../lib/keys/index.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { startRedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { writeStackFile } from '../../local/launcher/stack-file.ts';
import { createTeardown } from '../../local/stack/teardown.ts';
import { auditKeyspace } from '../../ops/keys-audit/audit-keyspace.ts';
import { connectResp, READ_ONLY_COMMANDS } from '../../ops/keys-audit/read-only-redis.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { passwordSignIn } from '../support/sessions.ts';
import { setPassword } from '../support/fixtures.ts';
import { newInvitee, startStack, type TestStack } from '../support/stack.ts';

const CLI = join(import.meta.dirname, '../../ops/keys-audit.ts');
const TSX = join(import.meta.dirname, '../../node_modules/.bin/tsx');

let server: RedisServerHandle;
let stack: TestStack;
let direct: IORedis;
let folder: string;

beforeAll(async () => {
  server = await startRedisServer();
  stack = await startStack({ redisUrl: server.url, env: { SSO_HANDOFF_AUDIENCES: 'console' } });
  direct = new IORedis(server.url);
  folder = mkdtempSync(join(tmpdir(), 'keys-audit-'));
});
afterAll(async () => {
  await direct?.quit();
  await stack?.close();
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  out: string;
  json:
    | {
        ok: boolean;
        keys: number;
        seconds: number;
        rows: Array<{ name: KeyName; keys: number }>;
        eviction: { store: string; policy: string };
        findings: Finding[];
      }
    | undefined;
}
interface Finding {
  kind: string;
  row: KeyName | null;
  key: string;
  detail?: string;
}

function audit(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [CLI, ...args], {
      // A data folder of the test's own: a developer's running npm start (.data) must not answer for "no store given".
      env: {
        ...process.env,
        REDIS_URL: '',
        UPSTASH_REDIS_REST_URL: '',
        UPSTASH_REDIS_REST_TOKEN: '',
        APP_ENV: '',
        KEY_PREFIX: '',
        RUNSTATE_DATA_DIR: folder,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => ((out += chunk.toString()), (stdout += chunk.toString())));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      let json: Run['json'];
      try {
        json = args.includes('--json') ? (JSON.parse(stdout) as Run['json']) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ code, out, json });
    });
  });
}

/** Writes since the last save (saving is off, so this only grows): Redis counts every change, a TTL's included. */
async function writesSoFar(): Promise<number> {
  const info = await direct.info('persistence');
  return Number(/rdb_changes_since_last_save:(\d+)/.exec(info)?.[1]);
}

/** Every key with its DUMP (value and type), as one checksum. */
async function dumpsChecksum(): Promise<string> {
  const all = (await direct.keys('*')).sort();
  const hash = createHash('sha256');
  for (const key of all) hash.update(key).update(((await direct.dumpBuffer(key)) ?? Buffer.alloc(0)).toString('base64'));
  return `${all.length}:${hash.digest('hex')}`;
}

/** Every command Redis runs while `during` does, as MONITOR sees it, and the write count and dumps before and after. */
async function watched<T>(during: () => Promise<T>) {
  const before = { writes: await writesSoFar(), dumps: await dumpsChecksum() };
  const monitor = await direct.monitor();
  const commands: string[] = [];
  let recording = true;
  monitor.on('monitor', (_time: string, args: string[]) => recording && commands.push(String(args[0]).toLowerCase()));
  const result = await during();
  // MONITOR lines trail the replies a little; the checks below must not be recorded.
  await new Promise((resolve) => setTimeout(resolve, 200));
  recording = false;
  monitor.disconnect();
  const after = { writes: await writesSoFar(), dumps: await dumpsChecksum() };
  return { result, commands, before, after };
}

const rowCount = (run: Run, name: KeyName) => run.json?.rows.find((row) => row.name === name)?.keys ?? 0;

/** Invites, throttles, sessions, the active context, a refresh, an SSO handoff code, a logout, an MFA challenge. */
async function runTheApp(): Promise<void> {
  const org = await stack.seedOrganization();
  const created: Array<{ invite: { inviteId: string }; token: string; email: string }> = [];
  for (const label of ['kept', 'accepted', 'cancelled']) {
    const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
    const response = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
      token: org.adminToken,
      body: { email, roleCode: 'Accountant' },
    });
    expect(response.status).toBe(201);
    created.push({ ...((await response.json()) as { invite: { inviteId: string }; token: string }), email });
  }
  const invitee = newInvitee();
  const bearer = await stack.token({ userId: invitee.userId, email: created[1]!.email });
  expect((await stack.request('POST', '/invites/accept', { token: bearer, body: { token: created[1]!.token } })).status).toBe(200);
  const cancelled = `/orgs/${org.organizationId}/invites/${created[2]!.invite.inviteId}`;
  expect((await stack.request('DELETE', cancelled, { token: org.adminToken })).status).toBe(204);
  expect((await stack.request('GET', `/orgs/${org.organizationId}/invites`, { token: org.adminToken })).status).toBe(200);

  const signIn = await passwordSignIn(stack, { userId: org.adminId, email: org.adminEmail });
  const session = await signIn(org.organizationId);
  const context = await stack.request('PUT', '/auth/context', { token: session.accessToken, body: { organizationId: org.organizationId } });
  expect(context.status).toBe(200);
  expect((await stack.request('POST', '/auth/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(200);
  expect((await stack.request('POST', '/auth/handoff', { token: session.accessToken, body: { audience: 'console' } })).status).toBe(201);
  const other = await signIn(org.organizationId);
  expect((await stack.request('POST', '/auth/logout', { token: other.accessToken })).status).toBe(204);

  // An MFA user half-way through a login: the challenge and the session state wait in Redis.
  const mfaOrg = await stack.seedOrganization();
  const password = `pw-${randomBytes(8).toString('hex')}`;
  await setPassword(stack.db, mfaOrg.adminId, password);
  const enrolled = await stack.request('POST', '/auth/mfa/enrol', { token: mfaOrg.adminToken, body: { password } });
  const { secret } = (await enrolled.json()) as { secret: string };
  const code = await totpCode(base32Decode(secret), totpStep(Date.now()));
  expect((await stack.request('POST', '/auth/mfa/enrol/confirm', { token: mfaOrg.adminToken, body: { code } })).status).toBe(200);
  const login = await stack.request('POST', '/auth/login', {
    body: { organizationId: mfaOrg.organizationId, email: mfaOrg.adminEmail, password },
    headers: { [TEST_CLIENT_IP_HEADER]: '127.9.0.1' },
  });
  expect(((await login.json()) as { status?: string }).status).toBe('mfa-required');
}

describe('a keyspace the real app wrote', () => {
  beforeAll(runTheApp);

  it('passes over RESP, sending only the read-only commands and changing nothing', async () => {
    const { result: run, commands, before, after } = await watched(() => audit(['--redis', server.url, '--env', 'test', '--json']));
    expect(run.out).not.toContain('findings (keys redacted)');
    expect(run.json?.findings).toEqual([]);
    expect(run.json?.eviction).toEqual({ store: 'main', policy: 'noeviction' });
    expect(run.code).toBe(0);
    for (const name of [
      'inviteObject',
      'inviteActiveByOrg',
      'inviteActiveByEmailHash',
      'inviteEmailIndexesByOrg',
      'inviteReceipt',
      'inviteReceiptsByOrg',
      'throttleCounter',
      'activeContext',
      'revokedSession',
      'ssoHandoffCode',
      'mfaTotpUsed',
      'mfaChallenge',
      'authSessionState',
    ] as const) {
      expect(rowCount(run, name), name).toBeGreaterThan(0);
    }
    expect(after).toEqual(before);
    // Beside the audit's commands only ioredis's QUIT at the end.
    const allowed = new Set<string>([...READ_ONLY_COMMANDS, 'quit']);
    expect(commands).toContain('scan');
    expect(commands).toContain('info');
    expect(commands.filter((command) => !allowed.has(command))).toEqual([]);
  });

  it('passes over the REST proxy with the token from the environment, never printing it', async () => {
    const {
      result: run,
      commands,
      before,
      after,
    } = await watched(() =>
      audit(['--rest-url', stack.redisProxy.url, '--env', 'test'], { UPSTASH_REDIS_REST_TOKEN: stack.redisProxy.token }),
    );
    expect(commands).toContain('scan');
    expect(commands.filter((command) => !(READ_ONLY_COMMANDS as readonly string[]).includes(command))).toEqual([]);
    expect(run.out).toContain('no findings');
    expect(run.code).toBe(0);
    expect(run.out).not.toContain(stack.redisProxy.token);
    expect(after).toEqual(before);
  });

  it('with no store given, audits the npm start its stack file names, in that stack’s namespace, and says so', async () => {
    const none = await audit(['--json']);
    expect(none.code).toBe(2);
    expect(none.out).toContain(`no npm start is running on ${folder}`);

    const launcher = createTeardown();
    // This process stands in for the launcher: the file names its pid, which is alive; the namespace is the app's here.
    await writeStackFile(
      folder,
      {
        redis: { url: stack.redisProxy.url, token: stack.redisProxy.token, description: '' },
        databaseUrl: 'postgres://127.0.0.1:1/unused',
        neonLocalProxyUrl: undefined,
        namespace: { APP_ENV: 'test', KEY_PREFIX: 'mhpay' },
      },
      launcher,
    );
    try {
      const { result: run, before, after } = await watched(() => audit(['--json']));
      expect(run.out).toContain(`keys:audit: no store given: auditing the npm start running on ${folder} (pid ${process.pid})`);
      expect(run.out).toContain(`keys mhpay:test:* through its REST proxy ${stack.redisProxy.url}`);
      expect(run.json?.findings).toEqual([]);
      expect(rowCount(run, 'inviteObject')).toBeGreaterThan(0);
      expect(run.code).toBe(0);
      expect(run.out).not.toContain(stack.redisProxy.token);
      expect(after).toEqual(before);
      // An option or the environment still chooses the keys: another namespace holds none of the app's.
      const other = await audit(['--json'], { APP_ENV: 'staging' });
      expect(other.out).toContain('keys mhpay:staging:*');
      expect(rowCount(other, 'inviteObject')).toBe(0);
    } finally {
      await launcher.run();
    }
  });

  it('would notice a write: a TTL moved by a second counts as one, a changed value changes the dumps (positive controls)', async () => {
    const [key] = (await direct.scan('0', 'MATCH', 'mhpay:test:*', 'COUNT', 1000))[1];
    const moved = await watched(async () => direct.pexpire(key!, (await direct.pttl(key!)) + 1_000));
    expect(moved.after.writes).toBe(moved.before.writes + 1);
    expect(moved.commands).toContain('pexpire');
    const scratch = 'mhpay:test:scratch';
    await direct.set(scratch, 'a', 'EX', 60);
    const changed = await watched(() => direct.set(scratch, 'b', 'KEEPTTL'));
    expect(changed.after.dumps).not.toBe(changed.before.dumps);
    await direct.del(scratch);
  });
});

describe('planted offenders', () => {
  const keys = createKeyspace({ prefix: 'mhpay', env: 'test' });
  const ORG = '0192f0c1-0000-7000-8000-0000000000aa';
  const ID = '0192f0c1-0000-7000-8000-0000000000bb';
  const EMAIL = `leaked-${randomBytes(3).toString('hex')}@example.test`;
  const JWT = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsZWFrZWQifQ.${randomBytes(32).toString('base64url')}`;
  const SECRET = randomBytes(32).toString('base64url');
  const CANARY = `CANARY-${randomBytes(6).toString('hex')}`;
  const planted = {
    noTtl: keys.revokedSession(ID),
    unknown: 'mhpay:test:tenant-cache:slug:acme',
    email: `mhpay:test:tenant-cache:${EMAIL}`,
    jwt: `mhpay:test:session:${JWT}`,
    secret: `mhpay:test:reset:${SECRET}`,
    badValue: keys.inviteObject(ORG, ID),
    wrongType: keys.activeContext(ORG, ID),
    ttlAboveMax: keys.syrveRuntimeTokenRefreshLock(ORG, ID),
    badCounter: keys.throttleCounter({ kind: 'org', id: ORG }, 'login', 'cd'.repeat(32) as never, 1_700_000_000),
    otherEnv: 'mhpay:dev:tenant-cache:untouched',
  };

  beforeAll(async () => {
    await direct.set(planted.noTtl, '1');
    await direct.set(planted.unknown, '{}', 'EX', 600);
    await direct.set(planted.email, '1', 'EX', 600);
    await direct.set(planted.jwt, '1', 'EX', 600);
    await direct.set(planted.secret, '1', 'EX', 600);
    await direct.set(planted.badValue, JSON.stringify({ inviteId: ID, note: CANARY }), 'EX', 600);
    await direct.zadd(planted.wrongType, 1, 'member');
    await direct.expire(planted.wrongType, 600);
    await direct.set(planted.ttlAboveMax, 'ab'.repeat(16), 'EX', 1_000);
    await direct.set(planted.badCounter, 'many', 'EX', 60);
    await direct.set(planted.otherEnv, '1');
  });
  afterAll(async () => {
    await direct.del(...Object.values(planted));
  });

  it('finds each one, under its registry row, and prints no offending value', async () => {
    const tokenFile = join(folder, 'token');
    writeFileSync(tokenFile, `${stack.redisProxy.token}\n`, { mode: 0o600 });
    const json = await audit(['--rest-url', stack.redisProxy.url, '--token-file', tokenFile, '--env', 'test', '--json']);
    const table = await audit(['--redis', server.url, '--env', 'test']);
    expect(json.code).toBe(1);
    expect(table.code).toBe(1);
    const found = (json.json?.findings ?? []).map(({ kind, row }) => `${kind} ${row ?? '-'}`).sort();
    expect(found).toEqual(
      [
        'no-ttl revokedSession',
        'unregistered -',
        'email-in-key -',
        'unregistered -',
        'jwt-in-key -',
        'unregistered -',
        'secret-in-key -',
        'unregistered -',
        'bad-value inviteObject',
        'wrong-type activeContext',
        'ttl-above-max syrveRuntimeTokenRefreshLock',
        'bad-value throttleCounter',
      ].sort(),
    );
    for (const output of [json.out, table.out]) {
      for (const value of [EMAIL, EMAIL.split('@')[0]!, JWT.slice(0, 24), SECRET.slice(0, 10), CANARY, stack.redisProxy.token]) {
        expect(output).not.toContain(value);
      }
    }
    // Positive control: the values are there to leak, and the table names rows and redacted keys.
    expect(await direct.get(planted.badValue)).toContain(CANARY);
    expect(table.out).toContain('syrveRuntimeTokenRefreshLock');
    expect(table.out).toContain('mhpay:test:tenant-cache:‹');
  });

  it('with --all also scans other namespaces', async () => {
    const run = await audit(['--redis', server.url, '--all', '--json']);
    expect(
      run.json?.findings
        .filter((finding) => finding.key === 'mhpay:dev:tenant-cache:untouched')
        .map((f) => f.kind)
        .sort(),
    ).toEqual(['no-ttl', 'unregistered']);
  });

  it('answers 2 for usage and connection errors, and refuses a password on the command line', async () => {
    expect((await audit(['--redis', server.url])).code).toBe(2);
    expect((await audit(['--redis', 'redis://:hunter2@127.0.0.1:1', '--env', 'test'])).out).toContain('belongs in REDIS_URL');
    const refused = await audit(['--redis', 'redis://127.0.0.1:1', '--env', 'test']);
    expect(refused.code).toBe(2);
    const wrongToken = await audit(['--rest-url', stack.redisProxy.url, '--env', 'test'], { UPSTASH_REDIS_REST_TOKEN: 'wrong-token' });
    expect(wrongToken.code).toBe(2);
    expect(wrongToken.out).toContain('refused the token');
  });
});

describe('pacing', () => {
  it('keeps to --rate: 400 keys at 400 keys/s in batches of 50 take at least (400 − one batch) / 400 s', async () => {
    const namespace = { prefix: 'pace', env: 'test' } as const;
    const paced = createKeyspace(namespace);
    const pipeline = direct.pipeline();
    for (let index = 0; index < 400; index += 1)
      pipeline.set(paced.revokedSession(`0192f0c1-0000-7000-8000-${String(index).padStart(12, '0')}`), '1', 'EX', 600);
    await pipeline.exec();
    const redis = await connectResp(server.url);
    try {
      const fast = await auditKeyspace(redis, {
        store: 'main',
        namespace,
        count: 50,
        rate: 1_000_000,
        maxValueBytes: 65_536,
        maxMembers: 1000,
      });
      const slow = await auditKeyspace(redis, { store: 'main', namespace, count: 50, rate: 400, maxValueBytes: 65_536, maxMembers: 1000 });
      expect(slow.keys).toBe(400);
      expect(slow.findings).toEqual([]);
      // SCAN's COUNT is a hint: the last batch may be a little larger than 50.
      expect(slow.seconds).toBeGreaterThanOrEqual((400 - 100) / 400);
      expect(fast.seconds).toBeLessThan(slow.seconds);
    } finally {
      await redis.close();
    }
  });
});

describe('eviction policy', () => {
  /** A Redis of its own with this policy and one denylist entry, and what the audit says about it as `store`. */
  async function auditStore(policy: string, store: string, extra: string[] = []): Promise<Run> {
    const own = await startRedisServer({ maxmemoryPolicy: policy });
    const owned = new IORedis(own.url);
    try {
      await owned.set(
        createKeyspace({ prefix: 'mhpay', env: 'test' }).revokedSession('0192f0c1-0000-7000-8000-000000000001'),
        '1',
        'EX',
        600,
      );
      return await audit(['--redis', own.url, '--env', 'test', '--store', store, '--json', ...extra]);
    } finally {
      await owned.quit();
      await own.stop();
    }
  }

  it('fails on a denylist store that may evict (allkeys-lru), saying why, and passes it with noeviction', async () => {
    const evicting = await auditStore('allkeys-lru', 'revocation');
    expect(evicting.code).toBe(1);
    expect(evicting.json?.eviction).toEqual({ store: 'revocation', policy: 'allkeys-lru' });
    expect(evicting.json?.findings).toEqual([
      { kind: 'eviction-policy', key: '(the store)', detail: expect.stringMatching(/denylist.*accepted again.*noeviction/) },
    ]);
    const kept = await auditStore('noeviction', 'revocation');
    expect(kept.code).toBe(0);
    expect(kept.json?.eviction).toEqual({ store: 'revocation', policy: 'noeviction' });
    expect(kept.json?.findings).toEqual([]);
  });

  it('fails on a main store that may evict, volatile-* included (every key has a TTL, so any key may go)', async () => {
    for (const policy of ['allkeys-lru', 'volatile-lru', 'volatile-ttl']) {
      const run = await auditStore(policy, 'main');
      expect(run.code, policy).toBe(1);
      expect(
        run.json?.findings.map((finding) => [finding.kind, finding.detail]),
        policy,
      ).toEqual([['eviction-policy', expect.stringMatching(/lock.*receipt.*noeviction/)]]);
    }
  });

  it('says unknown, and finds nothing to judge, where the store refuses INFO (the table says to check its settings)', async () => {
    const proxy = await startRedisRestProxy({ redisUrl: server.url });
    try {
      proxy.faults.set({ failCommands: ['info'] });
      const env = { UPSTASH_REDIS_REST_TOKEN: proxy.token };
      const json = await audit(['--rest-url', proxy.url, '--prefix', 'nothing', '--env', 'test', '--store', 'revocation', '--json'], env);
      expect(json.code).toBe(0);
      expect(json.json?.eviction).toEqual({ store: 'revocation', policy: 'unknown' });
      const table = await audit(['--rest-url', proxy.url, '--prefix', 'nothing', '--env', 'test', '--store', 'revocation'], env);
      expect(table.out).toContain('eviction policy of the revocation store: unknown (the store does not say');
    } finally {
      await proxy.close();
    }
  });

  it('refuses a --store it does not know with exit 2', async () => {
    expect((await audit(['--redis', server.url, '--env', 'test', '--store', 'cache'])).code).toBe(2);
  });
});

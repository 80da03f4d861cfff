// The export list (GET /orgs/{orgId}/audit/exports) through the real app on real Redis and PostgreSQL: every export of
// the organisation newest first in keyset pages, who asked (a person, by email where the caller may list members, or an
// API key), a queued export's expected start from the configured schedule, an export waiting between two runs not
// shown stalled, and outsiders refused at no cost to the tenant.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { systemClock } from '../../lib/deps.ts';
import { auditExportTask } from '../../lib/runtime/jobs/index.ts';
import { memberFixtures } from '../support/members.ts';
import { errorCode, passwordSignIn } from '../support/sessions.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';

let stack: TestStack;
/** A 1 s cache TTL and a 3 s schedule: the stall threshold is then the interval and a TTL (4 s), not twice the TTL (2 s). */
let slowSchedule: TestStack;
let m: ReturnType<typeof memberFixtures>;
/** Its own database: the task claims exports of any organisation, so another file's must not be there, nor these in theirs. */
let database: ScratchDatabase;

beforeAll(async () => {
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  stack = await startStack({ separateRevocationProxy: true, databaseUrl: database.url });
  slowSchedule = await startStack({ env: { JOB_CACHE_TTL_SECONDS: '1', CRON_INTERVAL_SECONDS: '3' }, databaseUrl: database.url });
  m = memberFixtures(stack);
});
afterAll(async () => {
  await stack?.close();
  await slowSchedule?.close();
  await database?.drop();
});

// No test leaves an export for the next one's run to take.
afterEach(async () => {
  for (let i = 0; i < 20 && !(await run()).done; i += 1);
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

interface Listed {
  jobId: string;
  organizationId: string;
  state: string;
  progressPercent: number;
  rowsDone: number;
  rowsTotal: number;
  createdAtUtc: string;
  finishedAtUtc: string | null;
  fileBytes: number | null;
  stalled: boolean;
  expectedStartBy: string | null;
  requestedByUserId: string;
  requestedBy: { type: 'user'; userId: string; email: string | null } | { type: 'api_key'; apiKeyId: string };
}
interface Page {
  exports: Listed[];
  nextCursor: string | null;
}

const SCHEDULE_MS = 300_000;

async function run() {
  return auditExportTask.run(stack.deps, createBudget({ commands: 10_000, timeMs: 30_000 }, systemClock), {
    correlationId: `run-${uuidv7()}`,
  });
}

async function requestExport(org: Org, token = org.adminToken): Promise<Listed> {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/audit/exports`, { token });
  expect(response.status).toBe(202);
  return ((await response.json()) as { job: Listed }).job;
}

async function list(org: Org, query = '', token = org.adminToken): Promise<Page> {
  const response = await stack.request('GET', `/orgs/${org.organizationId}/audit/exports${query}`, { token });
  expect(response.status).toBe(200);
  return (await response.json()) as Page;
}

async function makeKey(org: Org, scopes: string[]): Promise<{ apiKeyId: string; key: string }> {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/api-keys`, {
    token: org.adminToken,
    body: { name: 'exports', scopes },
  });
  expect(response.status).toBe(201);
  const made = (await response.json()) as { apiKey: { apiKeyId: string }; key: string };
  return { apiKeyId: made.apiKey.apiKeyId, key: made.key };
}

async function seedEvents(organizationId: string, count: number, s: TestStack = stack) {
  await s.db.query(
    `INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, details)
     SELECT gen_random_uuid(), now() - interval '1 day' + g * interval '1 millisecond', NULL, $1, NULL, gen_random_uuid(),
            'invite.created', 'list-' || g, '{}'::jsonb
       FROM generate_series(1, $2::int) g`,
    [organizationId, count],
  );
}

describe('the list', () => {
  it('shows every export of the organisation newest first, in pages that neither skip nor repeat, after a reload as before', async () => {
    const org = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    await seedEvents(org.organizationId, 30);
    const first = await requestExport(org);
    expect((await run()).removed).toBeGreaterThanOrEqual(1);
    const second = await requestExport(org);
    const cancelled = await stack.request('DELETE', `/orgs/${org.organizationId}/audit/exports/${second.jobId}`, { token: org.adminToken });
    expect(cancelled.status).toBe(204);
    const third = await requestExport(org);
    const fourth = await requestExport(org);
    // Another organisation's export is never in this one's list.
    await requestExport(other);

    const whole = await list(org);
    expect(whole.nextCursor).toBeNull();
    expect(whole.exports.map((job) => job.jobId)).toEqual([fourth.jobId, third.jobId, second.jobId, first.jobId]);
    expect(whole.exports.map((job) => job.state)).toEqual(['queued', 'queued', 'cancelled', 'done']);
    expect(whole.exports.every((job) => job.organizationId === org.organizationId)).toBe(true);
    expect(whole.exports[3]).toMatchObject({ progressPercent: 100, rowsDone: 30, rowsTotal: 30, expectedStartBy: null, stalled: false });
    expect(whole.exports[3]?.fileBytes).toBeGreaterThan(0);
    expect(whole.exports[0]).toMatchObject({
      requestedByUserId: org.adminId,
      requestedBy: { type: 'user', userId: org.adminId, email: org.adminEmail },
    });

    // Two at a time: the same four, in the same order, then the end.
    const one = await list(org, '?limit=2');
    expect(one.nextCursor).not.toBeNull();
    const two = await list(org, `?limit=2&cursor=${one.nextCursor}`);
    expect(two.nextCursor).toBeNull();
    expect([...one.exports, ...two.exports].map((job) => job.jobId)).toEqual(whole.exports.map((job) => job.jobId));
    // An export requested after the first page was read is newer than its cursor: the next page is unchanged.
    await stack.request('DELETE', `/orgs/${org.organizationId}/audit/exports/${third.jobId}`, { token: org.adminToken });
    await requestExport(org);
    expect((await list(org, `?limit=2&cursor=${one.nextCursor}`)).exports.map((job) => job.jobId)).toEqual(
      two.exports.map((job) => job.jobId),
    );
  });

  it('says when a queued export will start: the next whole 5 minutes of the configured schedule, on the list and the single read', async () => {
    const org = await stack.seedOrganization();
    const before = Date.now();
    const created = await requestExport(org);
    const listed = (await list(org)).exports[0]!;
    const read = await stack.request('GET', `/orgs/${org.organizationId}/audit/exports/${created.jobId}`, { token: org.adminToken });
    const single = ((await read.json()) as { job: Listed }).job;
    const after = Date.now();
    for (const job of [created, listed, single]) {
      const at = Date.parse(job.expectedStartBy!);
      expect(at % SCHEDULE_MS).toBe(0);
      expect(at).toBeGreaterThan(before);
      expect(at).toBeLessThanOrEqual(Math.floor(after / SCHEDULE_MS) * SCHEDULE_MS + SCHEDULE_MS);
    }
    // Once a run takes it, there is nothing to wait for.
    await run();
    expect((await list(org)).exports[0]).toMatchObject({ state: 'done', expectedStartBy: null });
  });

  it("names the API key that asked, and shows people's emails only to callers that may list members, and only of members", async () => {
    const org = await stack.seedOrganization();
    const exportsOnly = await makeKey(org, ['exports:read', 'exports:write']);
    const withMembers = await makeKey(org, ['exports:read', 'members:read']);
    const byKey = await requestExport(org, exportsOnly.key);
    const leaver = await m.addMember(org.organizationId, 'OrganizationAdmin');
    const byLeaver = await requestExport(org, leaver.token);
    const byAdmin = await requestExport(org);

    const asAdmin = (await list(org)).exports;
    expect(asAdmin.map((job) => [job.jobId, job.requestedBy])).toEqual([
      [byAdmin.jobId, { type: 'user', userId: org.adminId, email: org.adminEmail }],
      [byLeaver.jobId, { type: 'user', userId: leaver.userId, email: leaver.email }],
      [byKey.jobId, { type: 'api_key', apiKeyId: exportsOnly.apiKeyId }],
    ]);
    // The key acts in the name of the admin who made it; the list says the key asked.
    expect(asAdmin[2]?.requestedByUserId).toBe(org.adminId);

    // A key without members:read sees who asked by id only.
    const keyView = (await list(org, '', exportsOnly.key)).exports;
    expect(keyView.map((job) => job.requestedBy)).toEqual([
      { type: 'user', userId: org.adminId, email: null },
      { type: 'user', userId: leaver.userId, email: null },
      { type: 'api_key', apiKeyId: exportsOnly.apiKeyId },
    ]);
    expect((await list(org, '', withMembers.key)).exports[0]?.requestedBy).toEqual({
      type: 'user',
      userId: org.adminId,
      email: org.adminEmail,
    });

    // Once removed, a former member is an id: the admin no longer sees their email in the member list either.
    const removed = await stack.request('DELETE', `/orgs/${org.organizationId}/members/${leaver.userId}`, { token: org.adminToken });
    expect(removed.status).toBe(204);
    expect((await list(org)).exports[1]?.requestedBy).toEqual({ type: 'user', userId: leaver.userId, email: null });
  });

  it('refuses a cursor it never handed out (400) and a key without exports:read (403 SCOPE_MISSING)', async () => {
    const org = await stack.seedOrganization();
    for (const cursor of [
      'not-a-cursor',
      Buffer.from(`2026-01-01T00:00:00.000000Z|${uuidv7()}x`).toString('base64url'),
      'a'.repeat(300),
      // The shape of a cursor, with a date PostgreSQL cannot hold (no year 0): 400 like any other, not a 500.
      Buffer.from(`0000-01-01T00:00:00.000000Z|${uuidv7()}`).toString('base64url'),
    ]) {
      const response = await stack.request('GET', `/orgs/${org.organizationId}/audit/exports?cursor=${cursor}`, { token: org.adminToken });
      expect([cursor.slice(0, 20), response.status, await errorCode(response)]).toEqual([cursor.slice(0, 20), 400, 'VALIDATION_FAILED']);
    }
    for (const limit of ['0', '101', 'x']) {
      const response = await stack.request('GET', `/orgs/${org.organizationId}/audit/exports?limit=${limit}`, { token: org.adminToken });
      expect(response.status).toBe(400);
    }
    const membersOnly = await makeKey(org, ['members:read']);
    const refused = await stack.request('GET', `/orgs/${org.organizationId}/audit/exports`, { token: membersOnly.key });
    expect([refused.status, await errorCode(refused)]).toEqual([403, 'SCOPE_MISSING']);
  });
});

describe('between two runs', () => {
  it('an export handed back by its run is not stalled until one schedule interval and a TTL have passed without a heartbeat', async () => {
    const org = await slowSchedule.seedOrganization();
    await seedEvents(org.organizationId, 600, slowSchedule);
    const created = await requestExport(org);
    // One batch (claim, cache, read, commit, cache, hand back): the job waits for the next run, running at 500 of 600.
    const budget = createBudget({ commands: 6, timeMs: 30_000 }, systemClock);
    expect(await auditExportTask.run(slowSchedule.deps, budget, { correlationId: `run-${uuidv7()}` })).toMatchObject({ visited: 1 });
    const heartbeatAge = async () =>
      Number(
        (await slowSchedule.db.query('SELECT extract(epoch FROM now() - heartbeat_at) AS age FROM jobs WHERE id = $1', [created.jobId]))
          .rows[0].age,
      );
    // Polled until it shows stalled; each answer's heartbeat age is read right after it, on PostgreSQL's clock.
    const waiting: number[] = [];
    let stalledAt: number | undefined;
    await expect
      .poll(
        async () => {
          const response = await slowSchedule.request('GET', `/orgs/${org.organizationId}/audit/exports/${created.jobId}`, {
            token: org.adminToken,
          });
          const { job } = (await response.json()) as { job: Listed & { source: string } };
          const age = await heartbeatAge();
          if (job.stalled) stalledAt = age;
          else if (job.source === 'database') waiting.push(age);
          return job.stalled;
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBe(true);
    expect(stalledAt).toBeGreaterThanOrEqual(4);
    // Past twice the TTL (what the threshold was) it still waited for its run, not stalled.
    expect(Math.max(...waiting)).toBeGreaterThan(2.5);
  });
});

describe('tenant isolation', () => {
  /** What the organisation's own quota (the tenant counter) holds now, every window summed. */
  async function counted(organizationId: string): Promise<number> {
    const keys = await stack.redis.keys(`*:org:{${organizationId}}:ratelimit:counter:tenant.*`);
    const values = await Promise.all(keys.map((key) => stack.redis.get(key)));
    return values.reduce((sum, value) => sum + Number(value ?? 0), 0);
  }

  it("refuses a member of another organisation 403 and gives back what it counted of the tenant's quota; a viewer of the organisation 403", async () => {
    const victim = await stack.seedOrganization();
    await requestExport(victim);
    const outsider = await stack.seedOrganization();
    // The admin's own request above is the tenant's; the outsider's must leave it at that.
    const before = await counted(victim.organizationId);
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) {
      const refused = await stack.request('GET', `/orgs/${victim.organizationId}/audit/exports`, { token: outsider.adminToken });
      expect([refused.status, await errorCode(refused)]).toEqual([403, 'FORBIDDEN']);
      expect(refused.headers.get('ratelimit-policy') ?? '').not.toContain('tenant');
    }
    await expect.poll(() => counted(victim.organizationId), { timeout: 5_000 }).toBe(before);
    expect(
      (await stack.db.query('SELECT count(*)::int AS n FROM jobs WHERE organization_id = $1', [victim.organizationId])).rows[0].n,
    ).toBe(1);
    const viewer = await m.addMember(victim.organizationId, 'Viewer');
    const asViewer = await stack.request('GET', `/orgs/${victim.organizationId}/audit/exports`, { token: viewer.token });
    expect([asViewer.status, await errorCode(asViewer)]).toEqual([403, 'FORBIDDEN']);
  });

  it('refuses a session of the same user bound to another organisation 403, before any store is asked', async () => {
    const home = await stack.seedOrganization();
    const other = await stack.seedOrganization();
    await requestExport(other);
    const admin = await m.addMember(home.organizationId, 'OrganizationAdmin');
    await m.grant(admin.userId, other.organizationId, 'OrganizationAdmin');
    const session = await (await passwordSignIn(stack, admin))(home.organizationId);

    const counters = async () => {
      const keys = (await stack.redis.keys(`*:org:{${other.organizationId}}:*`)).sort();
      return { keys, values: await Promise.all(keys.map((key) => stack.redis.get(key))) };
    };
    const before = await counters();
    stack.redisProxy.stats.reset();
    stack.revocationProxy.stats.reset();
    stack.neonProxy.stats.reset();
    const refused = await stack.request('GET', `/orgs/${other.organizationId}/audit/exports`, { token: session.accessToken });
    expect([refused.status, await errorCode(refused)]).toEqual([403, 'FORBIDDEN']);
    expect({
      redis: stack.redisProxy.stats.commands,
      revocation: stack.revocationProxy.stats.commands,
      postgres: stack.neonProxy.stats.httpRequests,
    }).toEqual({ redis: 0, revocation: 0, postgres: 0 });
    // Nothing of the other organisation's was counted (its admin's own request above is all it holds).
    expect(await counters()).toEqual(before);
    // The control: the same session lists its own organisation's exports.
    expect((await list(home, '', session.accessToken)).exports).toEqual([]);
  });
});

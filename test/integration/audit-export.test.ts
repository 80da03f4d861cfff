// Audit exports end to end: the jobs row is the truth, Redis caches a running job's progress with a bounded TTL, and
// the scheduled task writes the CSV in batches, resumes stalled jobs, and never commits a batch twice.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import type { TaskReport } from '../../lib/runtime/cron-task/task.ts';
import { systemClock } from '../../lib/deps.ts';
import { AUDIT_EXPORT, auditExportTask } from '../../lib/runtime/jobs/index.ts';
import { claimNextExport, releaseJob } from '../../lib/runtime/jobs/claim-job.ts';
import { commitBatch, readBatch } from '../../lib/runtime/jobs/export-batch.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';

/** The cache's default TTL; the denylist behind a proxy of its own, so a refused main Redis leaves auth working. */
let stack: TestStack;
/**
 * JOB_CACHE_TTL_SECONDS=1 and a 1 s schedule: the cache expires 1 s after a heartbeat and the job is stalled after 2 s
 * (with the deployments' 5-minute schedule it would be 301 s: lib/runtime/jobs/policy.ts).
 */
let short: TestStack;

/** Its own database: a run claims the export of any organisation, so another file's jobs must not be there. */
let database: ScratchDatabase;

beforeAll(async () => {
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  stack = await startStack({ separateRevocationProxy: true, databaseUrl: database.url });
  short = await startStack({ env: { JOB_CACHE_TTL_SECONDS: '1', CRON_INTERVAL_SECONDS: '1' }, databaseUrl: database.url });
});
afterAll(async () => {
  await stack?.close();
  await short?.close();
  await database?.drop();
});

// The task takes jobs of any organisation, so no test leaves one for the next.
afterEach(async () => {
  for (let i = 0; i < 20 && !(await run(stack)).done; i += 1);
  const unfinished = await stack.db.query(`SELECT count(*)::int AS n FROM jobs WHERE state IN ('queued', 'running')`);
  expect(unfinished.rows[0].n).toBe(0);
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

interface JobBody {
  jobId: string;
  state: string;
  progressPercent: number;
  rowsDone: number;
  rowsTotal: number;
  truncated: boolean;
  heartbeatAtUtc: string | null;
  stalled: boolean;
  createdAtUtc: string;
  finishedAtUtc: string | null;
  fileBytes: number | null;
  source: 'cache' | 'database';
}

/** One run of the task with its own budget; `commands: 6` is exactly one batch (claim, cache, read, commit, cache, hand back). */
async function run(s: TestStack, commands = 10_000): Promise<TaskReport> {
  const budget = createBudget({ commands, timeMs: 30_000 }, systemClock);
  const report = await auditExportTask.run(s.deps, budget, { correlationId: `run-${uuidv7()}` });
  expect(budget.used()).toBeLessThanOrEqual(commands);
  expect(report.commands).toBe(budget.used());
  return report;
}

/** `count` events of the organisation, 1 ms apart from `startMs`, correlation ids `<prefix>-1…`, written straight in. */
async function seedEvents(s: TestStack, organizationId: string, count: number, prefix: string, startMs = Date.now() - 86_400_000) {
  await s.db.query(
    `INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, details)
     SELECT gen_random_uuid(), to_timestamp($2::double precision / 1000) + g * interval '1 millisecond', NULL, $1, NULL,
            gen_random_uuid(), 'invite.created', $4 || '-' || g, jsonb_build_object('n', g, 'roleCode', 'Viewer')
       FROM generate_series(1, $3::int) g`,
    [organizationId, startMs, count, prefix],
  );
}

async function post(s: TestStack, org: Org): Promise<JobBody> {
  const response = await s.request('POST', `/orgs/${org.organizationId}/audit/exports`, { token: org.adminToken });
  expect(response.status).toBe(202);
  return ((await response.json()) as { job: JobBody }).job;
}

async function get(s: TestStack, org: Org, jobId: string): Promise<JobBody> {
  const response = await s.request('GET', `/orgs/${org.organizationId}/audit/exports/${jobId}`, { token: org.adminToken });
  expect(response.status).toBe(200);
  return ((await response.json()) as { job: JobBody }).job;
}

async function errorOf(response: Response): Promise<[number, string]> {
  return [response.status, ((await response.json()) as { error: { code: string } }).error.code];
}

async function jobRow(s: TestStack, jobId: string) {
  const result = await s.db.query(
    'SELECT state, rows_done, rows_total, parts, claim_id, heartbeat_at, (SELECT count(*)::int FROM job_files WHERE job_id = $1) AS files FROM jobs WHERE id = $1',
    [jobId],
  );
  return result.rows[0] as
    | { state: string; rows_done: number; rows_total: number; parts: number; claim_id: string | null; heartbeat_at: Date; files: number }
    | undefined;
}

const cacheKey = (s: TestStack, org: Org, jobId: string) => s.deps.keys.jobCache({ kind: 'org', id: org.organizationId }, jobId);

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** RFC 4180: quoted cells may hold commas, doubled quotes and line breaks; rows end in CRLF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (quoted) {
      if (ch !== '"') cell += ch;
      else if (text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else cell += ch;
  }
  expect(cell).toBe('');
  expect(row).toEqual([]);
  return rows;
}

/** The file as the organisation's events say it should be: every one before the job's cut-off, in (occurred_at, id) order. */
async function expectedRows(s: TestStack, organizationId: string, jobId: string): Promise<string[][]> {
  const result = await s.db.query(
    `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, action, actor_user_id, location_id,
            target_id, correlation_id, details, actor_api_key_id
       FROM audit_events
      WHERE organization_id = $1 AND occurred_at < (SELECT until_occurred_at FROM jobs WHERE id = $2)
      ORDER BY occurred_at, id`,
    [organizationId, jobId],
  );
  // A cell a spreadsheet would run as a formula is read back with the leading quote mark the export added.
  const defused = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
  return result.rows.map((r: Record<string, unknown>) =>
    [
      r.at,
      r.action,
      r.actor_user_id ?? '',
      r.location_id ?? '',
      r.target_id ?? '',
      r.correlation_id,
      JSON.stringify(r.details),
      r.actor_api_key_id ?? '',
    ].map((value) => defused(String(value))),
  );
}

async function download(s: TestStack, org: Org, jobId: string): Promise<Response> {
  return s.request('GET', `/orgs/${org.organizationId}/audit/exports/${jobId}/file`, { token: org.adminToken });
}

describe('progress', () => {
  it('is visible from the cache between runs; completion deletes the cache and keeps the row', async () => {
    const org = await stack.seedOrganization();
    await seedEvents(stack, org.organizationId, 1_200, 'progress');
    const created = await post(stack, org);
    expect(created).toMatchObject({
      state: 'queued',
      progressPercent: 0,
      rowsDone: 0,
      rowsTotal: 1_200,
      truncated: false,
      heartbeatAtUtc: null,
      stalled: false,
      finishedAtUtc: null,
      fileBytes: null,
      source: 'database',
    });
    const key = cacheKey(stack, org, created.jobId);
    expect(await stack.redis.exists(key)).toBe(0);

    const percents = [];
    for (const expected of [500, 1_000]) {
      expect(await run(stack, 6)).toMatchObject({ visited: 1, removed: 0, repaired: 0, done: false });
      const job = await get(stack, org, created.jobId);
      expect(job).toMatchObject({ state: 'running', rowsDone: expected, rowsTotal: 1_200, stalled: false, source: 'cache' });
      expect(Date.now() - Date.parse(job.heartbeatAtUtc!)).toBeLessThan(10_000);
      percents.push(job.progressPercent);
      // The cache's TTL is the registry's, set again by this heartbeat.
      const ttl = await stack.redis.ttl(key);
      expect(ttl).toBeGreaterThan(110);
      expect(ttl).toBeLessThanOrEqual(120);
      // The row says the same, and the run handed the job back so the next one resumes at once.
      expect(await jobRow(stack, created.jobId)).toMatchObject({ state: 'running', rows_done: expected, claim_id: null });
      expect((await jobRow(stack, created.jobId))?.heartbeat_at.toISOString()).toBe(job.heartbeatAtUtc);
    }
    expect(percents).toEqual([41, 83]);

    expect(await run(stack, 6)).toMatchObject({ visited: 1, removed: 1, done: false });
    expect(await stack.redis.exists(key)).toBe(0);
    const done = await get(stack, org, created.jobId);
    expect(done).toMatchObject({
      state: 'done',
      progressPercent: 100,
      rowsDone: 1_200,
      rowsTotal: 1_200,
      stalled: false,
      source: 'database',
    });
    expect(done.finishedAtUtc).not.toBeNull();
    expect(await jobRow(stack, created.jobId)).toMatchObject({ state: 'done', rows_done: 1_200, parts: 3, files: 3 });

    const file = await download(stack, org, created.jobId);
    expect(file.status).toBe(200);
    const text = await file.text();
    expect(new TextEncoder().encode(text).byteLength).toBe(
      done.fileBytes! + 'occurred_at,action,actor_user_id,location_id,target_id,correlation_id,details,actor_api_key_id\r\n'.length,
    );
    expect(parseCsv(text).slice(1)).toEqual(await expectedRows(stack, org.organizationId, created.jobId));
  });

  it('needs no Redis: with the cache refused the export still finishes, and reads fall back to the row (WARN without the key)', async () => {
    const org = await stack.seedOrganization();
    await seedEvents(stack, org.organizationId, 600, 'no-redis');
    const created = await post(stack, org);
    const logsBefore = stack.logs.length;
    stack.redisProxy.faults.set({ refuse: true });
    try {
      expect(await run(stack, 6)).toMatchObject({ visited: 1, done: false });
      expect(await get(stack, org, created.jobId)).toMatchObject({ state: 'running', rowsDone: 500, source: 'database' });
      expect(await run(stack)).toMatchObject({ removed: 1, done: true });
      expect(await get(stack, org, created.jobId)).toMatchObject({ state: 'done', rowsDone: 600, source: 'database' });
    } finally {
      stack.redisProxy.faults.clear();
    }
    const warnings = stack.logs.slice(logsBefore).filter((line) => line.includes('job_cache_unavailable'));
    expect(warnings.length).toBeGreaterThanOrEqual(3);
    for (const line of warnings) {
      expect(JSON.parse(line)).toMatchObject({ level: 'warn', jobId: created.jobId });
      expect(line).not.toContain(':job:cache:');
    }
    expect(parseCsv(await (await download(stack, org, created.jobId)).text())).toHaveLength(601);
  });
});

describe('stalled jobs', () => {
  it('heartbeats stop: the cache expires, the job shows stalled, and the next run resumes it to done', async () => {
    const org = await short.seedOrganization();
    await seedEvents(short, org.organizationId, 1_200, 'stall');
    const created = await post(short, org);
    const key = cacheKey(short, org, created.jobId);

    expect(await run(short, 6)).toMatchObject({ visited: 1, done: false });
    expect(await get(short, org, created.jobId)).toMatchObject({ state: 'running', rowsDone: 500, source: 'cache', stalled: false });
    expect([0, 1]).toContain(await short.redis.ttl(key));

    // No run comes: one TTL later the progress is gone from Redis and the row answers; two TTLs later it is stalled.
    await waitFor('the cache to expire', async () => (await short.redis.exists(key)) === 0);
    await waitFor('the job to show stalled', async () => (await get(short, org, created.jobId)).stalled);
    expect(await get(short, org, created.jobId)).toMatchObject({ state: 'running', rowsDone: 500, source: 'database', stalled: true });

    expect(await run(short)).toMatchObject({ repaired: 1, removed: 1, visited: 2, done: true });
    expect(await get(short, org, created.jobId)).toMatchObject({ state: 'done', progressPercent: 100, stalled: false, source: 'database' });
    expect(await short.redis.exists(key)).toBe(0);
    expect(await jobRow(short, created.jobId)).toMatchObject({ state: 'done', rows_done: 1_200 });
    expect(parseCsv(await (await download(short, org, created.jobId)).text()).slice(1)).toEqual(
      await expectedRows(short, org.organizationId, created.jobId),
    );
  });

  it('a run that died keeps its claim until the stall threshold: no other run works the job before, the next one after', async () => {
    const org = await short.seedOrganization();
    await seedEvents(short, org.organizationId, 300, 'dead-run');
    const created = await post(short, org);
    // A run claims the job and dies before its first batch.
    const dead = await claimNextExport(short.deps, uuidv7());
    expect(dead?.row.id).toBe(created.jobId);

    expect(await run(short)).toMatchObject({ visited: 0, done: true });
    expect(await jobRow(short, created.jobId)).toMatchObject({ state: 'running', rows_done: 0, claim_id: dead!.claimId });

    await waitFor('the job to show stalled', async () => (await get(short, org, created.jobId)).stalled);
    expect(await run(short)).toMatchObject({ repaired: 1, removed: 1, done: true });
    expect(await jobRow(short, created.jobId)).toMatchObject({ state: 'done', rows_done: 300, claim_id: null });
    // The dead run's claim is worth nothing now.
    expect(await commitBatch(short.deps, dead!, await readBatch(short.deps, dead!.row, 500), true)).toBeUndefined();
  });
});

describe('exactly once', () => {
  it('a batch committed twice lands once; a run meanwhile leaves a claimed job alone', async () => {
    const org = await stack.seedOrganization();
    await seedEvents(stack, org.organizationId, 800, 'twice');
    const created = await post(stack, org);
    const claimed = await claimNextExport(stack.deps, uuidv7());
    expect(claimed?.row.id).toBe(created.jobId);
    const batch = await readBatch(stack.deps, claimed!.row, 500);
    const once = await commitBatch(stack.deps, claimed!, batch, false);
    expect(once).toMatchObject({ rows_done: 500, parts: 1 });
    expect(await commitBatch(stack.deps, claimed!, batch, false)).toBeUndefined();
    expect(await jobRow(stack, created.jobId)).toMatchObject({ rows_done: 500, parts: 1, files: 1 });

    expect(await run(stack)).toMatchObject({ visited: 0, done: true });
    await releaseJob(stack.deps, { jobId: created.jobId, claimId: claimed!.claimId });
    expect(await run(stack)).toMatchObject({ visited: 1, removed: 1, done: true });
    expect(parseCsv(await (await download(stack, org, created.jobId)).text()).slice(1)).toEqual(
      await expectedRows(stack, org.organizationId, created.jobId),
    );
  });

  it('two runs at once finish every job once, each event in its file once', async () => {
    const orgs = [await stack.seedOrganization(), await stack.seedOrganization()];
    const jobs = [];
    for (const [i, org] of orgs.entries()) {
      await seedEvents(stack, org.organizationId, 1_700 + i * 100, `pair-${i}`);
      jobs.push(await post(stack, org));
    }
    const reports = await Promise.all([run(stack), run(stack)]);
    // Each claimed a different job (SKIP LOCKED, then the claim), and neither worked the other's.
    expect(reports.map((r) => r.removed)).toEqual([1, 1]);
    for (const [i, org] of orgs.entries()) {
      expect(await jobRow(stack, jobs[i]!.jobId)).toMatchObject({ state: 'done', parts: 4 });
      const rows = parseCsv(await (await download(stack, org, jobs[i]!.jobId)).text()).slice(1);
      expect(rows).toEqual(await expectedRows(stack, org.organizationId, jobs[i]!.jobId));
      expect(new Set(rows.map((row) => row[4])).size).toBe(1_700 + i * 100);
    }
  });
});

describe('the file', () => {
  it("holds exactly the organisation's events in order, none of another's, with hostile cells escaped", async () => {
    const [a, b] = [await stack.seedOrganization(), await stack.seedOrganization()];
    const base = Date.now() - 3_600_000;
    await seedEvents(stack, a.organizationId, 700, 'org-a', base);
    await seedEvents(stack, b.organizationId, 300, 'org-b', base);
    // Written straight into PostgreSQL: the audit writer refuses a line break in a correlation id; the export escapes anyway.
    const tie = new Date(base + 5).toISOString();
    for (const [correlationId, details] of [
      ['=HYPERLINK("http://evil.example","x")', { note: 'a,b "c"', n: -1 }],
      ['line\r\nbreak, "quoted"', { note: '@SUM(A1)' }],
      ['-2+3', {}],
    ] as const) {
      await stack.db.query(
        `INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, details)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, NULL, 'syrve.connection_tested', $5, $6)`,
        [tie, a.adminId, a.organizationId, a.locationId, correlationId, JSON.stringify(details)],
      );
    }
    const created = await post(stack, a);
    expect(created.rowsTotal).toBe(703);
    expect(await run(stack)).toMatchObject({ removed: 1, done: true });

    const file = await download(stack, a, created.jobId);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="audit-export-${created.jobId}.csv"`);
    expect(file.headers.get('cache-control')).toBe('no-store');
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(bytes.byteLength).toBe(Number(file.headers.get('content-length')));
    const text = new TextDecoder().decode(bytes);

    const rows = parseCsv(text);
    expect(rows[0]).toEqual([
      'occurred_at',
      'action',
      'actor_user_id',
      'location_id',
      'target_id',
      'correlation_id',
      'details',
      'actor_api_key_id',
    ]);
    const expected = await expectedRows(stack, a.organizationId, created.jobId);
    expect(expected).toHaveLength(703);
    expect(rows.slice(1)).toEqual(expected);
    expect(text).not.toContain('org-b-');
    // Formula starts defused inside quotes; quotes doubled; the line break kept inside its quoted cell.
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(text).toContain(`"line\r\nbreak, ""quoted"""`);
    expect(text).toContain(`"'-2+3"`);
    expect(text).toContain(`"{""note"":""@SUM(A1)""}"`);

    // The download is in the audit trail; the request and the end are too, and are not in their own file.
    const audit = await stack.db.query(
      `SELECT action, actor_user_id, details FROM audit_events WHERE organization_id = $1 AND target_id = $2 ORDER BY occurred_at`,
      [a.organizationId, created.jobId],
    );
    expect(audit.rows.map((r: { action: string }) => r.action)).toEqual([
      'audit.export_requested',
      'audit.export_finished',
      'audit.export_downloaded',
    ]);
    expect(audit.rows[1]).toMatchObject({ actor_user_id: null, details: { outcome: 'done', rows: 703 } });
  });

  it('is 409 before the export is done', async () => {
    const org = await stack.seedOrganization();
    await seedEvents(stack, org.organizationId, 600, 'early');
    const created = await post(stack, org);
    expect(await errorOf(await download(stack, org, created.jobId))).toEqual([409, 'EXPORT_NOT_READY']);
    await run(stack, 6);
    expect(await errorOf(await download(stack, org, created.jobId))).toEqual([409, 'EXPORT_NOT_READY']);
    await run(stack);
    expect((await download(stack, org, created.jobId)).status).toBe(200);
  });

  it('holds the newest 100 000 events when there are more, and says so', async () => {
    const org = await stack.seedOrganization();
    await seedEvents(stack, org.organizationId, AUDIT_EXPORT.maxRows + 50, 'cap');
    const created = await post(stack, org);
    expect(created).toMatchObject({ rowsTotal: 100_000, truncated: true });
    expect(await run(stack, 6)).toMatchObject({ visited: 1 });
    const part = await stack.db.query('SELECT content FROM job_files WHERE job_id = $1 AND part_no = 1', [created.jobId]);
    const first = parseCsv(part.rows[0].content as string);
    expect(first).toHaveLength(500);
    expect(first[0]![5]).toBe('cap-51');
    expect(first[499]![5]).toBe('cap-550');
    expect(
      (await stack.request('DELETE', `/orgs/${org.organizationId}/audit/exports/${created.jobId}`, { token: org.adminToken })).status,
    ).toBe(204);
  });
});

describe('tenancy and roles', () => {
  it("another organisation's admin gets 403 on the job and the file, and 404 asking for it under their own", async () => {
    const [a, b] = [await stack.seedOrganization(), await stack.seedOrganization()];
    await seedEvents(stack, a.organizationId, 50, 'tenant');
    const created = await post(stack, a);
    await run(stack, 6);
    const job = `/orgs/${a.organizationId}/audit/exports/${created.jobId}`;
    const asB = { token: b.adminToken };
    expect(await errorOf(await stack.request('GET', job, asB))).toEqual([403, 'FORBIDDEN']);
    expect(await errorOf(await stack.request('GET', `${job}/file`, asB))).toEqual([403, 'FORBIDDEN']);
    expect(await errorOf(await stack.request('DELETE', job, asB))).toEqual([403, 'FORBIDDEN']);
    expect(await errorOf(await stack.request('POST', `/orgs/${a.organizationId}/audit/exports`, asB))).toEqual([403, 'FORBIDDEN']);

    const underB = `/orgs/${b.organizationId}/audit/exports/${created.jobId}`;
    expect(await errorOf(await stack.request('GET', underB, asB))).toEqual([404, 'NOT_FOUND']);
    expect(await errorOf(await stack.request('GET', `${underB}/file`, asB))).toEqual([404, 'NOT_FOUND']);
    expect(await errorOf(await stack.request('DELETE', underB, asB))).toEqual([404, 'NOT_FOUND']);
    expect(
      await errorOf(await stack.request('GET', `/orgs/${a.organizationId}/audit/exports/${uuidv7()}`, { token: a.adminToken })),
    ).toEqual([404, 'NOT_FOUND']);

    // Nothing of it was given out or audited under b, and a still gets its file.
    const downloads = await stack.db.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE action = 'audit.export_downloaded' AND target_id = $1`,
      [created.jobId],
    );
    expect(downloads.rows[0].n).toBe(0);
    expect((await download(stack, a, created.jobId)).status).toBe(200);
  });

  it('refuses a bad job id with 400 and no token with 401', async () => {
    const org = await stack.seedOrganization();
    expect(
      await errorOf(await stack.request('GET', `/orgs/${org.organizationId}/audit/exports/not-a-uuid`, { token: org.adminToken })),
    ).toEqual([400, 'VALIDATION_FAILED']);
    expect((await stack.request('POST', `/orgs/${org.organizationId}/audit/exports`)).status).toBe(401);
  });
});

describe('limits and cancellation', () => {
  it('at most 3 unfinished exports per organisation, even when requested at once', async () => {
    const org = await stack.seedOrganization();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => stack.request('POST', `/orgs/${org.organizationId}/audit/exports`, { token: org.adminToken })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 202, 202, 409, 409]);
    const refused = responses.find((r) => r.status === 409)!;
    expect(await errorOf(refused)).toEqual([409, 'EXPORT_LIMIT_REACHED']);
    const requested = await stack.db.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1 AND action = 'audit.export_requested'`,
      [org.organizationId],
    );
    expect(requested.rows[0].n).toBe(3);
    // A finished one frees its slot.
    expect(await run(stack)).toMatchObject({ removed: 3, done: true });
    await post(stack, org);
  });

  it('cancel stops the job, deletes the cache and the file, keeps the row; a repeat is 204, a finished job 409', async () => {
    const org = await stack.seedOrganization();
    await seedEvents(stack, org.organizationId, 1_200, 'cancel');
    const created = await post(stack, org);
    await run(stack, 6);
    const key = cacheKey(stack, org, created.jobId);
    expect(await stack.redis.exists(key)).toBe(1);

    const path = `/orgs/${org.organizationId}/audit/exports/${created.jobId}`;
    expect((await stack.request('DELETE', path, { token: org.adminToken })).status).toBe(204);
    expect(await stack.redis.exists(key)).toBe(0);
    expect(await jobRow(stack, created.jobId)).toMatchObject({ state: 'cancelled', rows_done: 500, files: 0 });
    expect((await stack.request('DELETE', path, { token: org.adminToken })).status).toBe(204);
    const cancelled = await stack.db.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action = 'audit.export_cancelled'`,
      [created.jobId],
    );
    expect(cancelled.rows[0].n).toBe(1);

    expect(await run(stack)).toMatchObject({ visited: 0, done: true });
    expect(await get(stack, org, created.jobId)).toMatchObject({ state: 'cancelled', rowsDone: 500, source: 'database' });
    expect(await errorOf(await download(stack, org, created.jobId))).toEqual([409, 'EXPORT_NOT_READY']);

    const finished = await post(stack, org);
    await run(stack);
    expect(
      await errorOf(
        await stack.request('DELETE', `/orgs/${org.organizationId}/audit/exports/${finished.jobId}`, { token: org.adminToken }),
      ),
    ).toEqual([409, 'EXPORT_FINISHED']);
  });
});

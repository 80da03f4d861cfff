// The retention task: deletes exactly the sessions ended more than SESSION_RETENTION_DAYS ago with their refresh tokens,
// webhook ids past any replay, outgoing deliveries ended a month ago and their events, and exports finished more than
// EXPORT_RETENTION_DAYS ago; keeps live sessions, recent ones
// and every audit row; stops at its budget and resumes; a second run deletes nothing.
import { decodeJwt } from 'jose';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { systemClock } from '../../lib/deps.ts';
import { RETENTION_BATCH, RETENTION_PHASES, retentionTask, WEBHOOK_DELIVERY_RETENTION_MS } from '../../lib/runtime/retention/index.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { seedOrganization, setPassword } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { deliveriesOf, emitRoleChange, seedEndpoint } from '../support/webhook-endpoints.ts';

const DAY = "interval '1 day'";

let scratch: ScratchDatabase;
let db: pg.Client;
let stack: TestStack;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  // A database of its own: the task deletes across every organisation, and keeps one cursor.
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  stack = await startStack({ env: { DATABASE_URL: scratch.url } });
  org = await seedOrganization(db);
});

afterAll(async () => {
  await stack?.close();
  await db?.end();
  await scratch?.drop();
});

beforeEach(async () => {
  await db.query('DELETE FROM refresh_tokens');
  await db.query('DELETE FROM sessions');
  await db.query('DELETE FROM webhook_deliveries');
  await db.query('DELETE FROM jobs');
  await db.query('DELETE FROM cron_cursors');
  await db.query('DELETE FROM revoked_tokens');
});

const run = (commands = 1_000) =>
  retentionTask.run(stack.deps, createBudget({ commands, timeMs: 5_000 }, systemClock), { correlationId: uuidv7() });

/**
 * `count` sessions of the seeded admin, each with `tokens` refresh tokens, written in one statement. `ended` is SQL for
 * (revoked_at, expires_at), relative to now.
 */
async function sessions(count: number, ended: { revokedAt: string; expiresAt: string }, tokens = 2): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO sessions (id, user_id, organization_id, created_at, expires_at, revoked_at, last_seen_at)
     SELECT gen_random_uuid(), $1, $2, now() - 40 * ${DAY}, ${ended.expiresAt}, ${ended.revokedAt}, now() - 40 * ${DAY}
       FROM generate_series(1, $3)
     RETURNING id`,
    [org.adminId, org.organizationId, count],
  );
  const ids = rows.map((row) => row.id);
  await db.query(
    `INSERT INTO refresh_tokens (token_hash, session_id, created_at, used_at)
     SELECT encode(sha256(convert_to(s.id::text || ':' || n, 'UTF8')), 'hex'), s.id, now(), CASE WHEN n > 1 THEN now() END
       FROM unnest($1::uuid[]) AS s(id), generate_series(1, $2) AS n`,
    [ids, tokens],
  );
  return ids;
}

/** A session opened through POST /auth/login (in this file's database, where the seeded admin lives). */
async function signIn(): Promise<{ sessionId: string; refreshToken: string }> {
  const password = `pw-${uuidv7()}`;
  await setPassword(db, org.adminId, password);
  const response = await stack.request('POST', '/auth/login', {
    body: { organizationId: org.organizationId, email: org.adminEmail, password },
    headers: { [TEST_CLIENT_IP_HEADER]: '127.3.0.1' },
  });
  expect(response.status).toBe(200);
  const { accessToken, refreshToken } = (await response.json()) as { accessToken: string; refreshToken: string };
  return { sessionId: decodeJwt(accessToken).sid as string, refreshToken };
}

async function existing(table: 'sessions' | 'jobs' | 'revoked_tokens', ids: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM ${table} WHERE id = ANY($1) ORDER BY id`, [ids]);
  return rows.map((row) => row.id);
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params);
  return rows[0]!.n;
}

async function cursor(): Promise<string | null | undefined> {
  const { rows } = await db.query<{ cursor: string | null }>("SELECT cursor FROM cron_cursors WHERE task = 'retention'");
  return rows[0]?.cursor;
}

describe('retention', () => {
  it('deletes exactly the sessions ended more than 30 days ago and their refresh tokens; keeps the rest and every audit row', async () => {
    const revokedLongAgo = await sessions(3, { revokedAt: `now() - 31 * ${DAY}`, expiresAt: `now() - 30 * ${DAY}` });
    const expiredLongAgo = await sessions(2, { revokedAt: 'NULL', expiresAt: `now() - 31 * ${DAY}` });
    const revokedRecently = await sessions(2, { revokedAt: `now() - 29 * ${DAY}`, expiresAt: `now() - 28 * ${DAY}` });
    const expiredRecently = await sessions(1, { revokedAt: 'NULL', expiresAt: `now() - 29 * ${DAY}` });
    const live = await sessions(2, { revokedAt: 'NULL', expiresAt: `now() + ${DAY}` });
    // An identity provider's session logout recorded long ago: a row with no end, revoked.
    const external = uuidv7();
    await db.query(`INSERT INTO sessions (id, user_id, created_at, revoked_at) VALUES ($1, $2, now() - 40 * ${DAY}, now() - 35 * ${DAY})`, [
      external,
      org.adminId,
    ]);
    // A session signed in through the API now, and its audit trail.
    const signedIn = await signIn();
    const auditBefore = await count('audit_events');
    expect(auditBefore).toBeGreaterThan(0);

    const report = await run();
    expect(report).toMatchObject({ task: 'retention', visited: 6, removed: 6 + 5 * 2, repaired: 0, done: true });
    const all = [...revokedLongAgo, ...expiredLongAgo, ...revokedRecently, ...expiredRecently, ...live, external, signedIn.sessionId];
    expect(await existing('sessions', all)).toEqual([...revokedRecently, ...expiredRecently, ...live, signedIn.sessionId].sort());
    expect(await count('refresh_tokens WHERE session_id = ANY($1)', [[...revokedLongAgo, ...expiredLongAgo]])).toBe(0);
    expect(await count('refresh_tokens WHERE session_id = ANY($1)', [[...revokedRecently, ...expiredRecently, ...live]])).toBe(5 * 2);
    expect(await count('audit_events')).toBe(auditBefore);
    expect(await cursor()).toBeNull();
    // The live session it kept goes on working.
    expect((await stack.request('POST', '/auth/refresh', { body: { refreshToken: signedIn.refreshToken } })).status).toBe(200);

    // Idempotent: a second run finds nothing.
    expect(await run()).toMatchObject({ visited: 0, removed: 0, done: true });
  });

  it('stops at its budget (one statement per batch), keeps its place, and the next run finishes', async () => {
    const old = await sessions(
      RETENTION_BATCH.sessions * 2 + 50,
      { revokedAt: `now() - 31 * ${DAY}`, expiresAt: `now() - 30 * ${DAY}` },
      1,
    );
    const keep = await sessions(3, { revokedAt: 'NULL', expiresAt: `now() + ${DAY}` }, 1);
    // The cursor read, one batch, the cursor write.
    const first = await run(3);
    expect(first).toMatchObject({ visited: RETENTION_BATCH.sessions, removed: 2 * RETENTION_BATCH.sessions, done: false, commands: 3 });
    expect(await existing('sessions', old)).toHaveLength(RETENTION_BATCH.sessions + 50);
    expect(await cursor()).toBe('revoked-sessions');
    // Two batches: the second finds the last 50 and ends the phase; the next phase waits for the next run.
    const second = await run(4);
    expect(second).toMatchObject({ visited: RETENTION_BATCH.sessions + 50, done: false, commands: 4 });
    expect(await cursor()).toBe('expired-sessions');
    expect(await existing('sessions', old)).toEqual([]);
    expect(await run()).toMatchObject({ visited: 0, removed: 0, done: true });
    expect(await existing('sessions', keep)).toEqual([...keep].sort());
    expect(await cursor()).toBeNull();
    // Nothing to do but the budget's floor: the cursor read, one batch per phase, the cursor write.
    expect((await run()).commands).toBe(1 + RETENTION_PHASES.length + 1);
  });

  it("deletes a single token's revocation once the token has expired, never one whose token still lives", async () => {
    const { rows } = await db.query<{ id: string; live: boolean }>(
      `INSERT INTO revoked_tokens (id, jti_sha256, user_id, revoked_at, expires_at)
       SELECT gen_random_uuid(), encode(sha256(convert_to(n::text, 'UTF8')), 'hex'), $1, now() - interval '20 minutes',
              now() + (CASE WHEN n % 2 = 0 THEN 1 ELSE -1 END) * interval '1 minute'
         FROM generate_series(1, $2) AS n
       RETURNING id, expires_at > now() AS live`,
      [org.adminId, RETENTION_BATCH.revokedTokens + 11],
    );
    const live = rows.filter((row) => row.live).map((row) => row.id);
    expect(await run()).toMatchObject({ done: true });
    expect(
      await existing(
        'revoked_tokens',
        rows.map((row) => row.id),
      ),
    ).toEqual([...live].sort());
  });

  it('deletes a session with more refresh tokens than one batch takes over several batches, never leaving a token without its session', async () => {
    const [heavy] = await sessions(
      1,
      { revokedAt: `now() - 31 * ${DAY}`, expiresAt: `now() - 30 * ${DAY}` },
      RETENTION_BATCH.refreshTokens + 10,
    );
    const first = await run(3);
    expect(first).toMatchObject({ visited: 1, removed: RETENTION_BATCH.refreshTokens, done: false });
    expect(await existing('sessions', [heavy!])).toEqual([heavy]);
    expect(await count('refresh_tokens WHERE session_id = $1', [heavy])).toBe(10);
    expect(await run()).toMatchObject({ removed: 11, done: true });
    expect(await existing('sessions', [heavy!])).toEqual([]);
    expect(await count('refresh_tokens')).toBe(0);
  });

  it('deletes webhook ids received before the replay window and its margin, and exports finished more than 7 days ago with their files', async () => {
    const windowSeconds = Math.ceil(WEBHOOK_DELIVERY_RETENTION_MS / 1000);
    await db.query(
      `INSERT INTO webhook_deliveries (webhook_id, kind, received_at) VALUES
         ('msg_old', 'syrve.credentials-rotated', now() - make_interval(secs => $1 + 60)),
         ('msg_recent', 'syrve.credentials-rotated', now() - make_interval(secs => $1 - 60))`,
      [windowSeconds],
    );
    const job = async (state: string, finishedAgo: string | null): Promise<string> => {
      const id = uuidv7();
      await db.query(
        `INSERT INTO jobs (id, organization_id, kind, state, requested_by_user_id, correlation_id, until_occurred_at, rows_total,
                           created_at, finished_at)
         VALUES ($1, $2, 'audit-export', $3, $4, 'corr', now(), 1, now() - 20 * ${DAY}, ${finishedAgo === null ? 'NULL' : `now() - ${finishedAgo}`})`,
        [id, org.organizationId, state, org.adminId],
      );
      await db.query("INSERT INTO job_files (job_id, part_no, content, bytes) VALUES ($1, 1, 'a,b\\n', 4)", [id]);
      return id;
    };
    const doneOld = await job('done', `8 * ${DAY}`);
    const failedOld = await job('failed', `8 * ${DAY}`);
    const cancelledOld = await job('cancelled', `8 * ${DAY}`);
    const doneRecent = await job('done', `6 * ${DAY}`);
    const running = await job('running', null);

    const report = await run();
    expect(report).toMatchObject({ removed: 1 + 3, done: true });
    const { rows } = await db.query<{ webhook_id: string }>('SELECT webhook_id FROM webhook_deliveries');
    expect(rows).toEqual([{ webhook_id: 'msg_recent' }]);
    expect(await existing('jobs', [doneOld, failedOld, cancelledOld, doneRecent, running])).toEqual([doneRecent, running].sort());
    expect(await count('job_files WHERE job_id = ANY($1)', [[doneOld, failedOld, cancelledOld]])).toBe(0);
    expect(await count('job_files WHERE job_id = ANY($1)', [[doneRecent, running]])).toBe(2);
  });

  it('deletes outgoing deliveries ended more than 30 days ago, then their events once none is left; keeps pending and recent ones', async () => {
    const hooks = { db, config: stack.config };
    const endpoint = await seedEndpoint(hooks, org.organizationId, 'http://127.0.0.1:9/hooks');
    const old = new Date(Date.now() - 40 * 86_400_000);
    // Four events of 40 days ago, one delivery each: succeeded and failed 31 days ago, succeeded 29 days ago, still pending.
    for (let i = 0; i < 4; i++) await emitRoleChange(hooks, org.organizationId, old);
    const rows = await deliveriesOf(hooks, endpoint.endpointId);
    const [succeededOld, failedOld, succeededRecent, pending] = rows.map((row) => row.id);
    const end = (id: string | undefined, state: string, daysAgo: number) =>
      db.query(`UPDATE webhook_endpoint_deliveries SET state = $2, ended_at = now() - $3 * ${DAY} WHERE id = $1`, [id, state, daysAgo]);
    await end(succeededOld, 'succeeded', 31);
    await end(failedOld, 'failed', 31);
    await end(succeededRecent, 'succeeded', 29);

    expect(await run()).toMatchObject({ removed: 2 + 2, done: true });
    expect((await deliveriesOf(hooks, endpoint.endpointId)).map((row) => row.id)).toEqual([succeededRecent, pending]);
    expect(await count('webhook_events WHERE organization_id = $1', [org.organizationId])).toBe(2);
    expect(await count('audit_events WHERE organization_id = $1 AND action = $2', [org.organizationId, 'member.role_changed'])).toBe(4);
    expect(await run()).toMatchObject({ removed: 0, done: true });
  });

  it('two runs at once delete disjoint rows and together exactly the old ones', async () => {
    const old = await sessions(RETENTION_BATCH.sessions + 30, { revokedAt: `now() - 31 * ${DAY}`, expiresAt: `now() - 30 * ${DAY}` }, 1);
    const keep = await sessions(2, { revokedAt: `now() - 1 * ${DAY}`, expiresAt: `now() + ${DAY}` }, 1);
    const reports = await Promise.all([run(), run()]);
    expect(reports.reduce((sum, r) => sum + r.removed, 0)).toBe(2 * old.length);
    expect(await existing('sessions', old)).toEqual([]);
    expect(await existing('sessions', keep)).toEqual([...keep].sort());
  });
});

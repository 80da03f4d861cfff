// The refresh's reuse and idle end beside a statement that revokes the same user's sessions: both take the revocation
// clock before the session row (migrations/0027_refresh_lock_order.sql), so the one that comes second waits and then
// sees the other's work, where the old order deadlocked (40P01, one side answered 503). Driven step by step on two
// connections against real PostgreSQL: the revoking side holds the clock, as its statement trigger takes it first, and
// goes on to the session rows only once the refresh is seen waiting.
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { seedOrganization } from '../support/fixtures.ts';

const IDLE_SECONDS = 7_200;
const GRACE_SECONDS = 30;

let scratch: ScratchDatabase;
let refreshing: pg.Client;
let revoking: pg.Client;
let observer: pg.Client;
let org: Awaited<ReturnType<typeof seedOrganization>>;
/** A second organisation the same user administers: the switch's target. */
let otherOrganizationId: string;

beforeAll(async () => {
  scratch = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  const open = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    return client;
  };
  refreshing = await open();
  revoking = await open();
  observer = await open();
  org = await seedOrganization(observer);
  otherOrganizationId = randomUUID();
  await observer.query("INSERT INTO organizations (id, name) VALUES ($1, 'Other org')", [otherOrganizationId]);
  await observer.query(
    "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'OrganizationAdmin')",
    [randomUUID(), org.adminId, otherOrganizationId],
  );
});

afterAll(async () => {
  for (const client of [refreshing, revoking, observer]) await client?.end();
  await scratch?.drop();
});

let sessionId: string;
beforeEach(async () => {
  sessionId = randomUUID();
  // Each test's sessions are the only live ones of the user, as a sign out everywhere sees them.
  await observer.query('UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [org.adminId]);
});

afterEach(async () => {
  // A test that failed half-way leaves a transaction open; it must not hold locks into the next.
  for (const client of [refreshing, revoking]) await client.query('ROLLBACK');
});

const hash = (label: string): string => createHash('sha256').update(`${label}:${sessionId}`).digest('hex');

/** A live session whose last refresh was `lastSeenSecondsAgo` ago, its token `live` unspent and `spent` spent an hour ago. */
async function seedSession(lastSeenSecondsAgo: number): Promise<void> {
  await observer.query(
    `INSERT INTO sessions (id, user_id, organization_id, expires_at, created_at, last_seen_at, method)
     VALUES ($1, $2, $3, now() + interval '30 days', now() - interval '1 day', now() - make_interval(secs => $4), 'password')`,
    [sessionId, org.adminId, org.organizationId, lastSeenSecondsAgo],
  );
  await observer.query(
    `INSERT INTO refresh_tokens (token_hash, session_id, created_at, used_at, successor_hash) VALUES
       ($1, $3, now() - interval '2 hours', now() - interval '1 hour', $2),
       ($2, $3, now() - interval '1 hour', NULL, NULL)`,
    [hash('spent'), hash('live'), sessionId],
  );
}

async function backendPid(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return rows[0]!.pid;
}

/** Waits until the backend waits for a lock: the event, not a sleep. */
async function waitingForLock(pid: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const { rows } = await observer.query<{ waiting: boolean }>(
      `SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1`,
      [pid],
    );
    if (rows[0]?.waiting === true) return;
    if (Date.now() > deadline) expect.fail(`backend ${pid} never waited for a lock`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `stampedSecondsAgo`: the caller's clock behind PostgreSQL's by that much (another isolate's). */
function refresh(presented: string, stampedSecondsAgo = 0): Promise<pg.QueryResult<{ outcome: string }>> {
  const query = 'SELECT outcome FROM auth_refresh_session($1, $2, now() - make_interval(secs => $7), $3, $4, $5, $6)';
  return refreshing.query<{ outcome: string }>(query, [
    hash(presented),
    hash(`successor of ${presented}`),
    IDLE_SECONDS,
    GRACE_SECONDS,
    randomUUID(),
    `lock-order-${sessionId}`,
    stampedSecondsAgo,
  ]);
}

/** The session's revocation: when, its clock value, and the refresh's own audit rows for it. */
async function revocation(): Promise<{ revokedAt: Date | null; seq: string | null; refreshAudits: number; clock: string }> {
  const { rows } = await observer.query<{ revoked_at: Date | null; seq: string | null; audits: number; clock: string }>(
    `SELECT s.revoked_at, s.revocation_seq::text AS seq,
            (SELECT count(*)::int FROM audit_events a WHERE a.correlation_id = $2) AS audits,
            (SELECT seq::text FROM revocation_clock) AS clock
       FROM sessions s WHERE s.id = $1`,
    [sessionId, `lock-order-${sessionId}`],
  );
  const row = rows[0]!;
  return { revokedAt: row.revoked_at, seq: row.seq, refreshAudits: row.audits, clock: row.clock };
}

describe('a refresh that ends the session beside a sign out everywhere of the same user', () => {
  for (const { name, lastSeenSecondsAgo, presented } of [
    { name: 'a spent token presented again (reuse)', lastSeenSecondsAgo: 60, presented: 'spent' },
    { name: 'a session past its idle timeout', lastSeenSecondsAgo: IDLE_SECONDS + 60, presented: 'live' },
  ]) {
    it(`${name}: the refresh waits for the sign out's commit and finds the session ended; no deadlock, one revocation`, async () => {
      await seedSession(lastSeenSecondsAgo);
      const refreshPid = await backendPid(refreshing);
      // The sign out everywhere's first step: its statement trigger locks the clock before any session row.
      await revoking.query('BEGIN');
      await revoking.query('SELECT 1 FROM revocation_clock FOR UPDATE');
      const refreshed = refresh(presented);
      // Awaited below; a deadlock's rejection must not surface as unhandled meanwhile.
      refreshed.catch(() => undefined);
      await waitingForLock(refreshPid);
      // Then its rows. In the old order the refresh held this session's row here, waiting for the clock: a deadlock.
      const revokedAt = new Date(Date.now() - 1_000);
      const signedOut = await revoking.query('UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id', [
        org.adminId,
        revokedAt,
      ]);
      expect(signedOut.rows).toEqual([{ id: sessionId }]);
      await revoking.query('COMMIT');

      expect((await refreshed).rows).toEqual([{ outcome: 'ended' }]);
      const after = await revocation();
      expect(after.revokedAt).toEqual(revokedAt);
      // The sign out's clock value, and no second end written by the refresh.
      expect(after.seq).toBe(after.clock);
      expect(after.refreshAudits).toBe(0);
    });
  }

  it('a plain rotation does not take the clock: it completes while a revocation holds it', async () => {
    await seedSession(60);
    await revoking.query('BEGIN');
    await revoking.query('SELECT 1 FROM revocation_clock FOR UPDATE');
    expect((await refresh('live')).rows).toEqual([{ outcome: 'rotated' }]);
  });

  it('a refresh stamped by a clock behind the last one does not move last_seen_at back (the look before the lock holds)', async () => {
    await seedSession(60);
    const seen = async () =>
      (await observer.query<{ at: Date }>('SELECT last_seen_at AS at FROM sessions WHERE id = $1', [sessionId])).rows[0]!.at;
    const before = await seen();
    expect((await refresh('live', 600)).rows).toEqual([{ outcome: 'rotated' }]);
    expect(await seen()).toEqual(before);
  });

  it('the refresh first: the sign out waits for its commit and ends nothing twice', async () => {
    await seedSession(60);
    await refreshing.query('BEGIN');
    expect((await refresh('spent')).rows).toEqual([{ outcome: 'reused' }]);
    const revokePid = await backendPid(revoking);
    const signedOut = revoking.query('UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id', [
      org.adminId,
    ]);
    await waitingForLock(revokePid);
    await refreshing.query('COMMIT');
    expect((await signedOut).rows).toEqual([]);
    const after = await revocation();
    expect(after.seq).toBe(after.clock);
    expect(after.refreshAudits).toBe(1);
  });
});

describe('a refresh that ends the session beside a switch of it to another organisation (PUT /auth/context)', () => {
  function switchSession(): Promise<pg.QueryResult<{ outcome: string }>> {
    return revoking.query<{ outcome: string }>('SELECT outcome FROM auth_switch_session($1, $2, $3, $4, NULL, $5, now(), $6, $7)', [
      sessionId,
      org.adminId,
      org.organizationId,
      otherOrganizationId,
      hash('switched'),
      randomUUID(),
      `switch-${sessionId}`,
    ]);
  }

  it('the switch first: the reuse waits for its commit, then ends the switched session', async () => {
    await seedSession(60);
    const refreshPid = await backendPid(refreshing);
    await revoking.query('BEGIN');
    expect((await switchSession()).rows).toEqual([{ outcome: 'switched' }]);
    const refreshed = refresh('spent');
    refreshed.catch(() => undefined);
    await waitingForLock(refreshPid);
    await revoking.query('COMMIT');
    expect((await refreshed).rows).toEqual([{ outcome: 'reused' }]);
    const after = await revocation();
    expect(after.seq).toBe(after.clock);
  });

  it('the reuse first: the switch waits for its commit and finds the session revoked', async () => {
    await seedSession(60);
    const switchPid = await backendPid(revoking);
    await refreshing.query('BEGIN');
    expect((await refresh('spent')).rows).toEqual([{ outcome: 'reused' }]);
    const switched = switchSession();
    switched.catch(() => undefined);
    await waitingForLock(switchPid);
    await refreshing.query('COMMIT');
    expect((await switched).rows).toEqual([{ outcome: 'revoked' }]);
  });
});

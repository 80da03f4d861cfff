// The retention task: deletes what PostgreSQL no longer needs — ended sessions and their refresh tokens, webhook ids past
// any replay, ended outgoing webhook deliveries and their events, finished audit exports, single-token revocations of
// expired tokens — in bounded batches, oldest first. The audit trail is never pruned.
import * as z from 'zod';
import { dbCall } from '../../pg/unavailable.ts';
import { WEBHOOK_TOLERANCE_SECONDS } from '../../webhooks/standard-webhooks.ts';
import { resumeFromCursor } from '../cron-task/cursor.ts';
import type { CronTask, TaskReport } from '../cron-task/task.ts';
import type { Deps } from '../../deps.ts';

const TASK_NAME = 'retention';

/** Rows one statement may delete: sessions and the refresh tokens among them, webhook ids, export jobs (with their files). */
export const RETENTION_BATCH = {
  sessions: 200,
  refreshTokens: 2_000,
  webhookDeliveries: 500,
  endpointDeliveries: 500,
  webhookEvents: 500,
  exportJobs: 10,
  revokedTokens: 500,
} as const;

const DAY_MS = 86_400_000;

/**
 * A webhook id is kept a day. A replay passes the signature's timestamp check only within WEBHOOK_TOLERANCE_SECONDS either
 * side of its signed time, so at most twice that after the first delivery arrived; from then on the check refuses it by
 * itself, and the id's row is no longer what stops it. The day is margin for clocks (received_at is PostgreSQL's).
 */
export const WEBHOOK_DELIVERY_RETENTION_MS = 2 * WEBHOOK_TOLERANCE_SECONDS * 1000 + DAY_MS;

/**
 * An outgoing delivery that succeeded or failed is kept this long after it ended: its endpoint's list
 * (GET …/deliveries) shows it, and an admin can send it again, for a month. Its event goes once no delivery of it is left.
 */
export const ENDPOINT_DELIVERY_RETENTION_MS = 30 * DAY_MS;

/**
 * What is deleted, in this order; the cursor names the phase a run stopped in, so the next run starts there and one
 * backlog cannot keep the others from their turn. Within a phase no position is kept: every row a batch selects it
 * deletes, so the next batch starts where the last one ended.
 */
export const RETENTION_PHASES = [
  'revoked-sessions',
  'expired-sessions',
  'webhook-deliveries',
  'endpoint-deliveries',
  'webhook-events',
  'export-jobs',
  'revoked-tokens',
] as const;
type Phase = (typeof RETENTION_PHASES)[number];
const phaseSchema = z.enum(RETENTION_PHASES);

interface BatchResult {
  /** Rows deleted (sessions, refresh tokens, webhook ids, export jobs). */
  removed: number;
  /** Rows looked at: the sessions, webhook ids or jobs the batch selected. */
  visited: number;
  /** False while the phase may have more to delete. */
  finished: boolean;
}

/**
 * Bounded (one SQL statement per batch, each counted; it stops at the budget), resumable (the phase is its cursor),
 * idempotent and safe beside itself (FOR UPDATE SKIP LOCKED: two runs delete disjoint rows, a repeat finds nothing) and
 * beside the request paths (each statement re-checks that what it deletes has ended: a session revoked or past its end
 * for SESSION_RETENTION_DAYS, which no refresh or revocation touches again).
 */
export const retentionTask: CronTask = {
  name: TASK_NAME,
  async run(deps, budget) {
    const report: TaskReport = { task: TASK_NAME, visited: 0, removed: 0, repaired: 0, commands: 0, done: false };
    // Room for the cursor read, one batch and the cursor write.
    if (budget.commandsLeft() < 3 || budget.exhausted()) return { ...report, commands: budget.used() };
    await resumeFromCursor(deps, budget, TASK_NAME, async (stored) => {
      const parsed = phaseSchema.safeParse(stored);
      const first = parsed.success ? RETENTION_PHASES.indexOf(parsed.data) : 0;
      for (let turn = 0; turn < RETENTION_PHASES.length; turn++) {
        const phase = RETENTION_PHASES[(first + turn) % RETENTION_PHASES.length] as Phase;
        for (;;) {
          // One command stays for the cursor write.
          if (budget.exhausted() || budget.commandsLeft() < 2) return phase;
          budget.spend(1);
          const batch = await deleteBatch(deps, phase);
          report.visited += batch.visited;
          report.removed += batch.removed;
          if (batch.finished) break;
        }
      }
      report.done = true;
      return null;
    });
    return { ...report, commands: budget.used() };
  },
};

function deleteBatch(deps: Deps, phase: Phase): Promise<BatchResult> {
  const nowMs = deps.clock.now();
  switch (phase) {
    case 'revoked-sessions':
      return deleteEndedSessions(deps, phase, new Date(nowMs - deps.config.retention.sessionDays * DAY_MS));
    case 'expired-sessions':
      return deleteEndedSessions(deps, phase, new Date(nowMs - deps.config.retention.sessionDays * DAY_MS));
    case 'webhook-deliveries':
      return deleteEndedRows(deps, phase, new Date(nowMs - WEBHOOK_DELIVERY_RETENTION_MS));
    case 'endpoint-deliveries':
    case 'webhook-events':
      return deleteEndedRows(deps, phase, new Date(nowMs - ENDPOINT_DELIVERY_RETENTION_MS));
    case 'export-jobs':
      return deleteEndedRows(deps, phase, new Date(nowMs - deps.config.retention.exportDays * DAY_MS));
    case 'revoked-tokens':
      return deleteEndedRows(deps, phase, new Date(nowMs));
  }
}

/**
 * Which sessions have ended before the cutoff, and in which index order: revoked ones by sessions_revoked_idx
 * (migrations/0007), the rest by their end time (sessions_ended_by_expiry_idx, migrations/0012). A session ended only by
 * idleness is not revoked until its next refresh; it is deleted by its end time, at most SESSION_TTL_SECONDS later.
 * SQL of this file, never input.
 */
const ENDED: Record<'revoked-sessions' | 'expired-sessions', string> = {
  'revoked-sessions': 's.revoked_at < $1::timestamptz ORDER BY s.revoked_at, s.id',
  'expired-sessions': 's.revoked_at IS NULL AND s.expires_at < $1::timestamptz ORDER BY s.expires_at, s.id',
};

/**
 * One statement: up to RETENTION_BATCH.sessions ended sessions, up to RETENTION_BATCH.refreshTokens of their refresh
 * tokens (a session's are one per refresh, so a few may have many), and the sessions whose every token went in this
 * same statement. Every part reads the statement's one snapshot, so "every token" is exact; a session with tokens left
 * stays, ended, and is first in line for the next batch. Its tokens go first because they reference it.
 */
async function deleteEndedSessions(deps: Deps, phase: 'revoked-sessions' | 'expired-sessions', cutoff: Date): Promise<BatchResult> {
  const rows = await dbCall('commit', `cron.retention.${phase}`, (signal) =>
    deps.db.query<{ selected: number; sessions: number; tokens: number }>(
      `WITH doomed AS (
         SELECT s.id FROM sessions s WHERE ${ENDED[phase]} LIMIT $2 FOR UPDATE SKIP LOCKED
       ), picked AS (
         SELECT r.token_hash FROM refresh_tokens r WHERE r.session_id IN (SELECT id FROM doomed) ORDER BY r.session_id LIMIT $3
       ), tokens AS (
         DELETE FROM refresh_tokens WHERE token_hash IN (SELECT token_hash FROM picked) RETURNING 1
       ), emptied AS (
         DELETE FROM sessions s
          WHERE s.id IN (SELECT id FROM doomed)
            AND NOT EXISTS (SELECT 1 FROM refresh_tokens r
                             WHERE r.session_id = s.id AND r.token_hash NOT IN (SELECT token_hash FROM picked))
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM doomed)::int AS selected, (SELECT count(*) FROM emptied)::int AS sessions,
              (SELECT count(*) FROM tokens)::int AS tokens`,
      [cutoff.toISOString(), RETENTION_BATCH.sessions, RETENTION_BATCH.refreshTokens],
      { signal },
    ),
  );
  const { selected = 0, sessions = 0, tokens = 0 } = rows[0] ?? {};
  return { visited: selected, removed: sessions + tokens, finished: selected < RETENTION_BATCH.sessions && sessions === selected };
}

type SingleTablePhase = 'webhook-deliveries' | 'endpoint-deliveries' | 'webhook-events' | 'export-jobs' | 'revoked-tokens';

/** The smallest UUIDv7 of the cutoff's millisecond, in SQL: ids minted before the cutoff sort below it. */
const UUIDV7_FLOOR = "(lpad(to_hex(floor(extract(epoch FROM $1::timestamptz) * 1000)::bigint), 12, '0') || repeat('0', 20))::uuid";

/**
 * The phases that delete rows of one table over one index range, oldest first: the table, its key, which rows ended
 * before the cutoff ($1), in the index's order, and the batch. SQL of this file, never input.
 */
const SINGLE_TABLE: Record<SingleTablePhase, { table: string; key: string; ended: string; order: string; batch: number }> = {
  // Webhook ids received before the cutoff (webhook_deliveries_received_idx, migrations/0012).
  'webhook-deliveries': {
    table: 'webhook_deliveries',
    key: 'webhook_id',
    ended: 'received_at < $1::timestamptz',
    order: 'received_at, webhook_id',
    batch: RETENTION_BATCH.webhookDeliveries,
  },
  // Outgoing deliveries that ended (succeeded or failed) before the cutoff, among those created before it: a range of the
  // primary key (a UUIDv7 of the creation time; migrations/0028 has no index on ended_at), oldest first. A delivery an
  // admin sent again is pending, and stays.
  'endpoint-deliveries': {
    table: 'webhook_endpoint_deliveries',
    key: 'id',
    ended: `id < ${UUIDV7_FLOOR} AND state <> 'pending' AND ended_at < $1::timestamptz`,
    order: 'id',
    batch: RETENTION_BATCH.endpointDeliveries,
  },
  // Events from before the cutoff with no delivery left (webhook_deliveries_event_idx): deleting one would cascade to
  // its deliveries, so one that still has any stays.
  'webhook-events': {
    table: 'webhook_events',
    key: 'id',
    ended: `id < ${UUIDV7_FLOOR} AND NOT EXISTS (SELECT 1 FROM webhook_endpoint_deliveries d WHERE d.event_id = webhook_events.id)`,
    order: 'id',
    batch: RETENTION_BATCH.webhookEvents,
  },
  // Audit exports finished (done, failed or cancelled) before the cutoff: the job row and, by its ON DELETE CASCADE, the
  // file's parts (jobs_finished_idx, migrations/0012). The events themselves stay in audit_events; a new export makes
  // the file again. A job still queued or running is never touched.
  'export-jobs': {
    table: 'jobs',
    key: 'id',
    ended: "state IN ('done', 'failed', 'cancelled') AND finished_at < $1::timestamptz",
    order: 'finished_at, id',
    batch: RETENTION_BATCH.exportJobs,
  },
  // Single-token revocations whose token expired before the cutoff, now (revoked_tokens_expires_idx, migrations/0019):
  // the token is refused by its own exp from then on, so neither the denylist nor its repair needs the row.
  'revoked-tokens': {
    table: 'revoked_tokens',
    key: 'id',
    ended: 'expires_at < $1::timestamptz',
    order: 'expires_at, id',
    batch: RETENTION_BATCH.revokedTokens,
  },
};

async function deleteEndedRows(deps: Deps, phase: SingleTablePhase, cutoff: Date): Promise<BatchResult> {
  const { table, key, ended, order, batch } = SINGLE_TABLE[phase];
  const rows = await dbCall('commit', `cron.retention.${phase}`, (signal) =>
    deps.db.query<{ deleted: number }>(
      `WITH gone AS (
         DELETE FROM ${table} WHERE ${key} IN (
           SELECT ${key} FROM ${table} WHERE ${ended}
            ORDER BY ${order} LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM gone`,
      [cutoff.toISOString(), batch],
      { signal },
    ),
  );
  const deleted = rows[0]?.deleted ?? 0;
  return { visited: deleted, removed: deleted, finished: deleted < batch };
}

// A job as PostgreSQL keeps it, its public shape (docs/api.md#audit-exports-functionsaudit-exports-libruntimejobs), and the one read of it by id.
import * as z from 'zod';
import type { Deps } from '../../deps.ts';
import { JOB_KINDS } from '../../keys/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { stallSeconds } from './policy.ts';

export const JOB_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** The API's Job. `source` says where this answer came from: the Redis cache of a running job, or the jobs row. */
export const jobSchema = z.strictObject({
  jobId: z.uuid(),
  organizationId: z.uuid(),
  kind: z.enum(JOB_KINDS),
  state: z.enum(JOB_STATES),
  progressPercent: z.number().int().min(0).max(100),
  rowsDone: z.number().int().min(0),
  rowsTotal: z.number().int().min(0),
  truncated: z.boolean().describe('True when the organisation had more events than one export holds; the oldest were left out.'),
  heartbeatAtUtc: z.string().nullable(),
  stalled: z.boolean().describe('Running, but no heartbeat for twice the cache TTL: the next scheduled run resumes it.'),
  requestedByUserId: z.uuid(),
  correlationId: z.string(),
  createdAtUtc: z.string(),
  finishedAtUtc: z.string().nullable(),
  fileBytes: z.number().int().min(0).nullable().describe('Size of the CSV once the export is done; null before.'),
  expectedStartBy: z
    .string()
    .nullable()
    .describe(
      'Queued only: when the next scheduled run is due (the deployment says its schedule in CRON_INTERVAL_SECONDS); it ' +
        'starts the export unless exports of other organisations, served in turns, are ahead. Null in every other state.',
    ),
  source: z.enum(['cache', 'database']),
});

export type Job = z.infer<typeof jobSchema>;

/** Columns every job read selects; `$1` of the statement must be the stall threshold in seconds. */
export const JOB_COLUMNS = `id, organization_id, kind, state, requested_by_user_id, correlation_id, rows_total, rows_done,
  truncated, heartbeat_at, created_at, finished_at, file_bytes, parts, claim_id,
  to_char(cursor_occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at, cursor_id,
  to_char(until_occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS until_at,
  (state = 'running' AND COALESCE(heartbeat_at < now() - make_interval(secs => $1), true)) AS stalled`;

export interface JobRow {
  id: string;
  organization_id: string;
  kind: (typeof JOB_KINDS)[number];
  state: JobState;
  requested_by_user_id: string;
  correlation_id: string;
  rows_total: number;
  rows_done: number;
  truncated: boolean;
  heartbeat_at: Date | null;
  created_at: Date;
  finished_at: Date | null;
  /** bigint: the driver hands it over as a string. */
  file_bytes: string;
  parts: number;
  claim_id: string | null;
  /** Exact to the microsecond, as PostgreSQL keeps it, so the next batch starts exactly after it. */
  cursor_at: string | null;
  cursor_id: string | null;
  until_at: string;
  stalled: boolean;
}

/** Done is 100; otherwise rows done over rows expected, rounded down, never 100 before the job says it is done. */
export function progressPercent(state: JobState, rowsDone: number, rowsTotal: number): number {
  if (state === 'done') return 100;
  if (rowsTotal <= 0) return 0;
  return Math.min(99, Math.floor((rowsDone * 100) / rowsTotal));
}

/**
 * The row as the API shows it. `nextRunAt`: when the scheduled function runs next (lib/runtime/cron-task/next-run.ts),
 * shown on a queued job; null where the answer needs none (a running job's cache entry).
 */
export function toJob(row: JobRow, nextRunAt: Date | null): Job {
  return {
    jobId: row.id,
    organizationId: row.organization_id,
    kind: row.kind,
    state: row.state,
    progressPercent: progressPercent(row.state, row.rows_done, row.rows_total),
    rowsDone: row.rows_done,
    rowsTotal: row.rows_total,
    truncated: row.truncated,
    heartbeatAtUtc: row.heartbeat_at === null ? null : new Date(row.heartbeat_at).toISOString(),
    stalled: row.stalled,
    requestedByUserId: row.requested_by_user_id,
    correlationId: row.correlation_id,
    createdAtUtc: new Date(row.created_at).toISOString(),
    finishedAtUtc: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
    fileBytes: row.state === 'done' ? Number(row.file_bytes) : null,
    expectedStartBy: row.state === 'queued' && nextRunAt !== null ? nextRunAt.toISOString() : null,
    source: 'database',
  };
}

/** The job, if it exists in this organisation (a job id of another tenant reads as missing). */
export async function loadJob(deps: Deps, ref: { organizationId: string; jobId: string }): Promise<JobRow | undefined> {
  const rows = await dbCall('read', 'jobs.read', (signal) =>
    deps.db.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $2 AND organization_id = $3`,
      [stallSeconds(deps.config), ref.jobId, ref.organizationId],
      { signal },
    ),
  );
  return rows[0];
}

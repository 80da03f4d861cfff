// One batch of an audit export: read the next events after the job's cursor, then commit their CSV part with the cursor.
import type { Deps } from '../../deps.ts';
import { computedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { auditCsvLine } from './csv.ts';
import { JOB_COLUMNS, type JobRow } from './job-record.ts';
import { stallSeconds } from './policy.ts';

interface AuditEventRow {
  id: string;
  /** To the microsecond, for the cursor. */
  at_exact: string;
  /** To the millisecond, for the file (the API's other times have milliseconds). */
  at: string;
  action: string;
  actor_user_id: string | null;
  actor_api_key_id: string | null;
  location_id: string | null;
  target_id: string | null;
  correlation_id: string;
  details: unknown;
}

export interface Batch {
  /** The CSV rows, header not included (the download puts it first). */
  content: string;
  bytes: number;
  rows: number;
  /** The last event in it: where the next batch starts. */
  last: { at: string; id: string } | undefined;
}

const AT = (format: string) => `to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.${format}"Z"')`;

/** The organisation's next `limit` events after the cursor and before the job's cut-off, in (occurred_at, id) order. */
export async function readBatch(deps: Deps, job: JobRow, limit: number): Promise<Batch> {
  const params: unknown[] = [job.organization_id, job.until_at, limit];
  let after = '';
  if (job.cursor_at !== null && job.cursor_id !== null) {
    // The first condition lets the (organization_id, occurred_at) index bound the scan; the row comparison is exact.
    after = 'AND occurred_at >= $4::timestamptz AND (occurred_at, id) > ($4::timestamptz, $5::uuid)';
    params.push(job.cursor_at, job.cursor_id);
  }
  const rows = await dbCall('read', 'jobs.export.read', (signal) =>
    deps.db.query<AuditEventRow>(
      `SELECT id, ${AT('US')} AS at_exact, ${AT('MS')} AS at, action, actor_user_id, actor_api_key_id, location_id, target_id, correlation_id, details
         FROM audit_events
        WHERE organization_id = $1 AND occurred_at < $2::timestamptz ${after}
        ORDER BY occurred_at, id
        LIMIT $3`,
      params,
      { signal },
    ),
  );
  const content = rows
    .map((row) =>
      auditCsvLine({
        occurredAtUtc: row.at,
        action: row.action,
        actorUserId: row.actor_user_id,
        actorApiKeyId: row.actor_api_key_id,
        locationId: row.location_id,
        targetId: row.target_id,
        correlationId: row.correlation_id,
        details: row.details,
      }),
    )
    .join('');
  const lastRow = rows.at(-1);
  return {
    content,
    bytes: new TextEncoder().encode(content).byteLength,
    rows: rows.length,
    last: lastRow === undefined ? undefined : { at: lastRow.at_exact, id: lastRow.id },
  };
}

/**
 * One statement, so one transaction: the part (when the batch has rows), the cursor, rows done, the file's size, the
 * heartbeat and the claim's lease, and — for the last batch — `done`. It lands only if the job is still running
 * under this claim and still has the part count the batch was read at: a batch committed twice, by a retry or by a
 * run that took over a lapsed claim, changes nothing (the answer is undefined, and the caller stops).
 */
export async function commitBatch(
  deps: Deps,
  claim: { row: JobRow; claimId: string },
  batch: Batch,
  final: boolean,
): Promise<JobRow | undefined> {
  const { row } = claim;
  const hasPart = batch.rows > 0;
  // The last batch records the export's end in the same statement (the event export.finished follows from it,
  // migrations/0028_webhook_endpoints.sql); a batch that did not land writes no row.
  const finished = computedAuditInsert(
    {
      action: 'audit.export_finished',
      actorUserId: null,
      organizationId: row.organization_id,
      locationId: null,
      targetId: row.id,
      correlationId: row.correlation_id,
      details: { outcome: 'done' },
    },
    new Date(deps.clock.now()),
    { computed: { rows: 'SELECT rows_total FROM advanced' }, when: "EXISTS (SELECT 1 FROM advanced WHERE state = 'done')" },
    12,
  );
  const rows = await dbCall('commit', 'jobs.export.commit', (signal) =>
    deps.db.query<JobRow>(
      `WITH advanced AS (
         UPDATE jobs
            SET parts = parts + $5, rows_done = rows_done + $6, file_bytes = file_bytes + $7,
                cursor_occurred_at = COALESCE($8::timestamptz, cursor_occurred_at), cursor_id = COALESCE($9::uuid, cursor_id),
                heartbeat_at = now(),
                state = CASE WHEN $10 THEN 'done' ELSE state END,
                rows_total = CASE WHEN $10 THEN rows_done + $6 ELSE rows_total END,
                finished_at = CASE WHEN $10 THEN now() ELSE finished_at END,
                claim_id = CASE WHEN $10 THEN NULL ELSE claim_id END,
                lease_until = CASE WHEN $10 THEN NULL ELSE now() + make_interval(secs => $1) END,
                updated_at = now()
          WHERE id = $2 AND state = 'running' AND claim_id = $3 AND parts = $4
          RETURNING *
       ), part AS (
         INSERT INTO job_files (job_id, part_no, content, bytes)
         SELECT id, parts, $11, $7 FROM advanced WHERE $5 = 1
       ), finished AS (${finished.text})
       SELECT ${JOB_COLUMNS} FROM advanced`,
      [
        stallSeconds(deps.config),
        row.id,
        claim.claimId,
        row.parts,
        hasPart ? 1 : 0,
        batch.rows,
        batch.bytes,
        batch.last?.at ?? null,
        batch.last?.id ?? null,
        final,
        batch.content,
        ...finished.params,
      ],
      { signal },
    ),
  );
  return rows[0];
}

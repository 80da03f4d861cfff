// jobs.createAuditExport: a queued export of the organisation's audit events, its row and `audit.export_requested` in one transaction.
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../deps.ts';
import { nextScheduledRunAt } from '../cron-task/next-run.ts';
import { auditActor, auditStatement } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { JOB_COLUMNS, toJob, type Job, type JobRow } from './job-record.ts';
import { AUDIT_EXPORT, stallSeconds } from './policy.ts';

export type CreateExportOutcome = { ok: true; job: Job } | { ok: false; reason: 'limit-reached'; maxUnfinished: number };

/**
 * The export covers the events that occurred before now (the request's own audit row, written at now, is not in it).
 * Past the cap it holds the newest `maxRows` of them: the starting cursor skips the older ones, and the row says
 * `truncated`. Counting and placing that cursor are part of the INSERT, so the row is right from its first read.
 */
export async function createAuditExport(
  deps: Deps,
  input: { organizationId: string; requestedByUserId: string; actorApiKeyId?: string | undefined; correlationId: string },
): Promise<CreateExportOutcome> {
  const jobId = uuidv7();
  const now = new Date(deps.clock.now());
  const { maxRows, maxUnfinishedPerOrg } = AUDIT_EXPORT;
  const statements = [
    { text: 'SELECT jobs_take_slot($1, $2, $3)', params: [input.organizationId, 'audit-export', maxUnfinishedPerOrg] },
    {
      text: `INSERT INTO jobs (id, organization_id, kind, state, requested_by_user_id, correlation_id, until_occurred_at,
                               rows_total, truncated, cursor_occurred_at, cursor_id, created_at, requested_by_api_key_id)
             SELECT $2, $3, 'audit-export', 'queued', $4, $5, $6, total.n, skipped.id IS NOT NULL, skipped.occurred_at,
                    skipped.id, $6, $8::uuid
               FROM (SELECT count(*)::int AS n FROM (SELECT 1 FROM audit_events
                                                      WHERE organization_id = $3 AND occurred_at < $6 LIMIT $7) capped) total
               LEFT JOIN LATERAL (SELECT occurred_at, id FROM audit_events
                                   WHERE organization_id = $3 AND occurred_at < $6
                                   ORDER BY occurred_at DESC, id DESC OFFSET $7 LIMIT 1) skipped ON true
             RETURNING ${JOB_COLUMNS}`,
      params: [
        stallSeconds(deps.config),
        jobId,
        input.organizationId,
        input.requestedByUserId,
        input.correlationId,
        now,
        maxRows,
        // The key that asked, beside the admin it acts for (migrations/0031_export_list.sql): the list names it.
        input.actorApiKeyId ?? null,
      ],
    },
    auditStatement(
      {
        action: 'audit.export_requested',
        ...auditActor(input.requestedByUserId, input.actorApiKeyId),
        organizationId: input.organizationId,
        locationId: null,
        targetId: jobId,
        correlationId: input.correlationId,
      },
      now,
    ),
  ];
  try {
    const results = await dbCall('commit', 'jobs.create', (signal) => deps.db.transaction(statements, { signal }));
    const row = results[1]?.[0] as JobRow | undefined;
    if (row === undefined) throw new Error('jobs.create: the INSERT returned no row');
    return { ok: true, job: toJob(row, nextScheduledRunAt(deps.config, now.getTime())) };
  } catch (error) {
    if (sqlState(error) === 'RS429') return { ok: false, reason: 'limit-reached', maxUnfinished: maxUnfinishedPerOrg };
    throw error;
  }
}

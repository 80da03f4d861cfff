// jobs.listAuditExports: the organisation's audit exports from PostgreSQL, newest first, one keyset page at a time, with who asked.
import * as z from 'zod';
import type { Deps } from '../../deps.ts';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../pg/keyset-cursor.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { nextScheduledRunAt } from '../cron-task/next-run.ts';
import { JOB_COLUMNS, jobSchema, toJob, type JobRow } from './job-record.ts';
import { stallSeconds } from './policy.ts';

/** Who asked for an export: a person (their email only where the caller may list members and they still are one), or a key. */
export const exportRequesterSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('user'),
    userId: z.uuid(),
    email: z
      .string()
      .nullable()
      .describe(
        "Null when the caller may not list the organisation's members (an API key without members:read) or the person is no longer one.",
      ),
  }),
  z.strictObject({ type: z.literal('api_key'), apiKeyId: z.uuid() }),
]);

export const listedExportSchema = jobSchema.extend({ requestedBy: exportRequesterSchema });
export type ListedExport = z.infer<typeof listedExportSchema>;

export type ExportPage = { ok: true; exports: ListedExport[]; nextCursor: string | null } | { ok: false; reason: 'bad-cursor' };

interface ListedRow extends JobRow {
  requested_by_api_key_id: string | null;
  requester_email: string | null;
  /** created_at to the microsecond, for the cursor. */
  at_exact: string;
}

/**
 * A page of `limit` exports older than the cursor's, in (created_at DESC, id DESC) order, which
 * jobs_organization_list_idx holds (migrations/0031_export_list.sql): an export requested after a page was read is
 * newer than its cursor, so it never shifts a later page. Every state is listed, finished ones until retention deletes
 * them. Progress comes from the rows, which every batch updates with the cache, so the list reads no Redis. One
 * statement; the caller has checked the admin role.
 */
export async function listAuditExports(
  deps: Deps,
  request: { organizationId: string; limit: number; cursor?: string; showEmails: boolean },
): Promise<ExportPage> {
  const params: unknown[] = [stallSeconds(deps.config), request.organizationId, request.limit + 1, request.showEmails];
  let before = '';
  if (request.cursor !== undefined) {
    const position = decodeKeysetCursor(request.cursor);
    if (position === undefined) return { ok: false, reason: 'bad-cursor' };
    before = 'AND (created_at, id) < ($5::timestamptz, $6::uuid)';
    params.push(position.at, position.id);
  }
  const rows = await dbCall('read', 'jobs.list', (signal) =>
    deps.db.query<ListedRow>(
      `SELECT ${JOB_COLUMNS}, requested_by_api_key_id,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at_exact,
              CASE WHEN $4::boolean AND EXISTS (SELECT 1 FROM role_assignments AS r
                                                 WHERE r.user_id = jobs.requested_by_user_id AND r.organization_id = jobs.organization_id)
                   THEN (SELECT u.email FROM users AS u WHERE u.id = jobs.requested_by_user_id) END AS requester_email
         FROM jobs
        WHERE organization_id = $2 AND kind = 'audit-export' ${before}
        ORDER BY created_at DESC, id DESC
        LIMIT $3`,
      params,
      { signal },
    ),
  );
  const page = rows.slice(0, request.limit);
  const last = page.at(-1);
  const nextRunAt = nextScheduledRunAt(deps.config, deps.clock.now());
  return {
    ok: true,
    exports: page.map((row) => ({ ...toJob(row, nextRunAt), requestedBy: requesterOf(row) })),
    nextCursor: rows.length > request.limit && last !== undefined ? encodeKeysetCursor({ at: last.at_exact, id: last.id }) : null,
  };
}

function requesterOf(row: ListedRow): ListedExport['requestedBy'] {
  if (row.requested_by_api_key_id !== null) return { type: 'api_key', apiKeyId: row.requested_by_api_key_id };
  return { type: 'user', userId: row.requested_by_user_id, email: row.requester_email };
}

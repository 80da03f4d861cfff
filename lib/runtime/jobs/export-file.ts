// jobs.openAuditExportFile: a finished export's CSV, streamed from its parts, once its download is in the audit trail.
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { auditActor, writeAudit } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { AUDIT_CSV_HEADER } from './csv.ts';
import { JOB_COLUMNS, type JobRow, type JobState } from './job-record.ts';
import { AUDIT_EXPORT, stallSeconds } from './policy.ts';

export type OpenFileOutcome =
  | { ok: true; bytes: number; body: ReadableStream<Uint8Array> }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'not-ready'; state: Exclude<JobState, 'done'> };

/**
 * The job row and its parts' sizes in one read; then `audit.export_downloaded` (no download without its audit row: a
 * PostgreSQL that cannot write it answers 503); then a stream that reads the parts a few megabytes per query, so
 * neither this function nor one database answer ever holds the whole file.
 */
export async function openAuditExportFile(
  deps: Deps,
  input: { organizationId: string; jobId: string; actorUserId: string; actorApiKeyId?: string | undefined; correlationId: string },
): Promise<OpenFileOutcome> {
  const rows = await dbCall('read', 'jobs.file.open', (signal) =>
    deps.db.query<JobRow & { part_bytes: number[] }>(
      `SELECT ${JOB_COLUMNS}, ARRAY(SELECT bytes FROM job_files WHERE job_id = jobs.id ORDER BY part_no) AS part_bytes
         FROM jobs WHERE id = $2 AND organization_id = $3`,
      [stallSeconds(deps.config), input.jobId, input.organizationId],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  if (row.state !== 'done') return { ok: false, reason: 'not-ready', state: row.state };

  await dbCall('commit', 'jobs.file.audit', (signal) =>
    writeAudit(
      deps.db,
      {
        action: 'audit.export_downloaded',
        ...auditActor(input.actorUserId, input.actorApiKeyId),
        organizationId: input.organizationId,
        locationId: null,
        targetId: input.jobId,
        correlationId: input.correlationId,
        details: { rows: row.rows_done },
      },
      new Date(deps.clock.now()),
      { signal },
    ),
  );

  const header = new TextEncoder().encode(AUDIT_CSV_HEADER);
  const pages = pagesOf(row.part_bytes, AUDIT_EXPORT.downloadPageBytes);
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(header);
    },
    async pull(controller) {
      const page = pages[next];
      if (page === undefined) {
        controller.close();
        return;
      }
      next += 1;
      try {
        const parts = await dbCall('read', 'jobs.file.read', (signal) =>
          deps.db.query<{ content: string }>(
            'SELECT content FROM job_files WHERE job_id = $1 AND part_no BETWEEN $2 AND $3 ORDER BY part_no',
            [input.jobId, page.from, page.to],
            { signal },
          ),
        );
        for (const part of parts) controller.enqueue(encoder.encode(part.content));
      } catch (error) {
        // The status line is sent: the client sees a body shorter than its content-length, and tries again.
        deps.logger.warn('audit_export_download_failed', {
          jobId: input.jobId,
          errorKind: errorKind(error),
          correlationId: input.correlationId,
        });
        throw error;
      }
    },
  });
  return { ok: true, bytes: header.byteLength + Number(row.file_bytes), body };
}

/** Consecutive part numbers (1-based) grouped so each group's bytes stay within `pageBytes` (a larger part goes alone). */
export function pagesOf(partBytes: readonly number[], pageBytes: number): Array<{ from: number; to: number }> {
  const pages: Array<{ from: number; to: number }> = [];
  let current: { from: number; to: number; bytes: number } | undefined;
  partBytes.forEach((bytes, index) => {
    const partNo = index + 1;
    if (current !== undefined && current.bytes + bytes <= pageBytes) {
      current.to = partNo;
      current.bytes += bytes;
      return;
    }
    if (current !== undefined) pages.push({ from: current.from, to: current.to });
    current = { from: partNo, to: partNo, bytes };
  });
  if (current !== undefined) pages.push({ from: current.from, to: current.to });
  return pages;
}

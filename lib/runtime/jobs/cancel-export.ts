// jobs.cancelAuditExport: an unfinished export stops for good; its parts go, its row and audit trail stay.
import type { Deps } from '../../deps.ts';
import { auditActor, auditStatement } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { deleteJobCache } from './job-cache.ts';

export type CancelExportOutcome =
  { ok: true } | { ok: false; reason: 'not-found' } | { ok: false; reason: 'finished'; state: 'done' | 'failed' };

/**
 * One transaction: `jobs_cancel` (migrations/0006: only from queued or running) and `audit.export_cancelled`. A run
 * working the job finds its next batch refused (its UPDATE requires `running`) and stops. A repeat answers the same
 * and writes nothing. Then the cache is deleted (again, on a repeat: a DEL lost the first time is made good); if Redis
 * cannot, it expires by its TTL.
 */
export async function cancelAuditExport(
  deps: Deps,
  input: { organizationId: string; jobId: string; actorUserId: string; actorApiKeyId?: string | undefined; correlationId: string },
): Promise<CancelExportOutcome> {
  const audit = auditStatement(
    {
      action: 'audit.export_cancelled',
      ...auditActor(input.actorUserId, input.actorApiKeyId),
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.jobId,
      correlationId: input.correlationId,
    },
    new Date(deps.clock.now()),
  );
  try {
    await dbCall('commit', 'jobs.cancel', (signal) =>
      deps.db.transaction([{ text: 'SELECT jobs_cancel($1, $2)', params: [input.jobId, input.organizationId] }, audit], { signal }),
    );
  } catch (error) {
    const state = sqlState(error);
    if (state === 'RS404') return { ok: false, reason: 'not-found' };
    if (state === 'RS409') {
      const finished = (error as { detail?: unknown }).detail;
      if (finished === 'done' || finished === 'failed') return { ok: false, reason: 'finished', state: finished };
    }
    if (state !== 'RS208') throw error;
  }
  await deleteJobCache(deps, input);
  return { ok: true };
}

// jobs: background jobs whose truth is a row in PostgreSQL, with a running job's progress cached in Redis (audit exports first).
import { cancelAuditExport } from './cancel-export.ts';
import { createAuditExport } from './create-export.ts';
import { deleteJobCache } from './job-cache.ts';
import { openAuditExportFile } from './export-file.ts';
import { listAuditExports } from './list-exports.ts';
import { readAuditExport } from './read-export.ts';

export const jobs = {
  createAuditExport,
  readAuditExport,
  listAuditExports,
  cancelAuditExport,
  deleteJobCache,
  openAuditExportFile,
};
export { jobSchema } from './job-record.ts';
export { listedExportSchema } from './list-exports.ts';
export { AUDIT_EXPORT } from './policy.ts';
export { auditExportTask } from './run-exports.ts';

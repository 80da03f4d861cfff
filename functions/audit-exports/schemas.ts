// Request and response schemas of the audit export routes.
import * as z from 'zod';
import { pageLimit, uuidId } from '../../lib/http/route-schemas.ts';
import { jobSchema, listedExportSchema } from '../../lib/runtime/jobs/index.ts';

export const jobParams = z.strictObject({ orgId: uuidId, jobId: uuidId });

export const jobResponse = z.object({ job: jobSchema });

/** Page size of the export list: the default and the most one call may ask for (docs/api.md, Audit exports). */
export const EXPORT_PAGE = { default: 20, max: 100 } as const;

export const listExportsQuery = z.strictObject({
  limit: pageLimit(EXPORT_PAGE),
  cursor: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional()
    .describe("The previous page's nextCursor, as it was given."),
});

export const exportListResponse = z.object({
  exports: z.array(listedExportSchema).describe('Newest first: every state, finished ones until retention deletes them.'),
  nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next (older) page; null when this page is the last.'),
});
export const csvFile = z
  .string()
  .describe(
    'CSV (RFC 4180, CRLF): occurred_at, action, actor_user_id, location_id, target_id, correlation_id, details (JSON); ' +
      "a cell starting with = + - @, a tab or a carriage return is prefixed with ' and quoted.",
  );

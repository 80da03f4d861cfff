// Request and response schemas of the audit export routes.
import * as z from 'zod';
import { uuidId } from '../../lib/http/route-schemas.ts';
import { jobSchema } from '../../lib/runtime/jobs/index.ts';

export const jobParams = z.strictObject({ orgId: uuidId, jobId: uuidId });

export const jobResponse = z.object({ job: jobSchema });
export const csvFile = z
  .string()
  .describe(
    'CSV (RFC 4180, CRLF): occurred_at, action, actor_user_id, location_id, target_id, correlation_id, details (JSON); ' +
      "a cell starting with = + - @, a tab or a carriage return is prefixed with ' and quoted.",
  );

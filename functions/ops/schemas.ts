// Request and response schemas of the operator routes.
import * as z from 'zod';
import { uuidId } from '../../lib/http/route-schemas.ts';

export const tenantParams = z.strictObject({ orgId: uuidId });

export const suspendBody = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .regex(/^[^\p{Cc}]+$/u, 'no control characters')
    .describe('Kept in PostgreSQL only: never in an answer, a cache or a log.'),
});

export const stateResponse = z.object({
  organizationId: z.uuid(),
  state: z.enum(['active', 'suspended']),
  previousState: z.enum(['active', 'suspended']),
});

export const forgetResponse = z.object({
  organizationId: z.uuid(),
  landed: z.boolean().describe('false: Redis did not confirm; the entries still expire by their TTL (at most 5 minutes).'),
});

export const userParams = z.strictObject({ userId: uuidId });

export const mfaResetResponse = z.object({
  userId: z.uuid(),
  wasConfirmed: z.boolean().describe('false: the factor removed was still pending (never confirmed)'),
  recoveryCodesLeft: z.int().describe('Unused recovery codes deleted with it'),
});

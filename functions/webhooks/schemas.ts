// Schemas of the credential-rotation webhook: its signed headers and, once the signature holds, its body.
import * as z from 'zod';
import { uuidId } from '../../lib/http/route-schemas.ts';

export const rotationHeaders = z.object({
  'webhook-id': z.string().describe('Unique per delivery; a second use is refused with 409'),
  'webhook-timestamp': z.string().describe('Unix seconds; more than 5 minutes off is refused with 401'),
  'webhook-signature': z
    .string()
    .describe('v1,<base64 HMAC-SHA256 of "id.timestamp.body"> (Standard Webhooks), space-separated if several'),
});

export const rotationBody = z.strictObject({
  organizationId: uuidId,
  connectionId: uuidId,
  login: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^\p{Cc}]+$/u, 'no control characters'),
  password: z.string().min(1).max(256),
});

export const rotationResponse = z.object({ connectionId: z.uuid(), test: z.enum(['ok', 'failed']) });

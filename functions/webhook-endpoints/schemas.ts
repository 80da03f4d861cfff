// Request and response schemas of the webhook endpoint routes.
import * as z from 'zod';
import { deliverySchema, endpointSchema, EVENT_TYPES } from '../../lib/events/index.ts';
import { pageLimit, uuidId } from '../../lib/http/route-schemas.ts';

export const endpointParams = z.strictObject({ orgId: uuidId, endpointId: uuidId });
export const deliveryParams = z.strictObject({ orgId: uuidId, endpointId: uuidId, deliveryId: uuidId });

const url = z
  .string()
  .min(1)
  .max(2048)
  .describe('https:// (http:// in dev and test); its host must be a public address in staging and prod');
const events = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .max(EVENT_TYPES.length * 2)
  .describe('The event types sent to it (docs/design/events.md#event-catalogue); repeats count once.');
const description = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .regex(/^[^\p{Cc}]+$/u, 'no control characters');

export const createEndpointBody = z.strictObject({ url, events, description: description.optional() });

export const updateEndpointBody = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    description: description.nullable().optional().describe('null clears it'),
    state: z.enum(['enabled', 'disabled']).optional().describe("'disabled' by an admin records the reason 'admin'; 'enabled' clears it"),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'at least one field to change');

/** Page size of the delivery list: the default and the most one call may ask for (docs/api.md, Webhook endpoints). */
const DELIVERY_PAGE = { default: 50, max: 100 } as const;

export const listDeliveriesQuery = z.strictObject({
  limit: pageLimit(DELIVERY_PAGE),
  cursor: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional()
    .describe("The previous page's nextCursor, as it was given."),
});

export const createdEndpointResponse = z.object({
  endpoint: endpointSchema,
  secret: z.string().describe('The whsec_ signing secret: shown in this answer only, never again.'),
});
export const endpointResponse = z.object({ endpoint: endpointSchema });
export const endpointListResponse = z.object({ endpoints: z.array(endpointSchema) });
export const secretResponse = z.object({
  secret: z.string().describe('The new whsec_ secret, shown once; the previous one still signs beside it for 24 hours.'),
});
export const deliveryListResponse = z.object({
  deliveries: z.array(deliverySchema).describe('Newest first.'),
  nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next page; null when this page is the last.'),
});

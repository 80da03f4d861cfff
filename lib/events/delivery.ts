// A delivery as the routes show it: one endpoint's copy of one event, with where its attempts stand.
import * as z from 'zod';
import { EVENT_TYPES } from './event-types.ts';

export const deliverySchema = z.object({
  /** The webhook-id every attempt carries is derived from it, so a receiver sees one id across retries. */
  deliveryId: z.uuid(),
  eventId: z.uuid(),
  eventType: z.enum(EVENT_TYPES),
  state: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int().min(0),
  /** The receiver's HTTP status on the last attempt; null before one, or when it gave none (a timeout, a refused connection). */
  lastStatus: z.number().int().nullable(),
  /** A short reason of ours for the last failure (never the receiver's body). */
  lastError: z.string().nullable(),
  lastAttemptAt: z.iso.datetime().nullable(),
  /** When the next attempt is due; null once the delivery ended. */
  nextAttemptAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  endedAt: z.iso.datetime().nullable(),
});

export type Delivery = z.infer<typeof deliverySchema>;

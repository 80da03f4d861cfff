// Request and response schemas of the Syrve/iiko connection routes.
import * as z from 'zod';
import { uuidId } from '../../lib/http/route-schemas.ts';
import { connectionSchema } from '../../lib/runtime/syrve/index.ts';

export const connectionParams = z.strictObject({ orgId: uuidId, connectionId: uuidId });

/** Printable text without control characters: names and logins end up in logs of the upstream and in admin pages. */
const printable = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]+$/u, 'no control characters');

export const createConnectionBody = z.strictObject({
  name: printable(100),
  baseUrl: z
    .string()
    .min(1)
    .max(2048)
    .describe('https:// origin (and optional path prefix) of the RMS server; loopback http:// in dev/test only'),
  login: printable(200),
  password: z.string().min(1).max(256).describe('Sealed (AES-256-GCM) before it is stored; never returned.'),
});

export const connectionResponse = z.object({ connection: connectionSchema });
export const connectionListResponse = z.object({ connections: z.array(connectionSchema) });
export const testResponse = z.object({
  test: z.enum(['ok', 'failed']),
  session: z.enum(['cached', 'acquired', 'none']).describe("'none' when the test failed before an upstream call was made"),
});
export const storesResponse = z.object({
  stores: z.array(z.object({ id: z.string(), code: z.string().nullable(), name: z.string() })),
  session: z.enum(['cached', 'acquired']),
});
const secondsLeft = z
  .number()
  .int()
  .min(0)
  .nullable()
  .describe('Whole seconds until Redis lets it go (rounded up); null when there is none');
export const runtimeStateResponse = z.object({
  connectionId: z.uuid(),
  session: z
    .object({ cached: z.boolean(), secondsLeft })
    .describe("A readable session of this connection's current credentials in Redis; never its value"),
  refreshLock: z.object({ held: z.boolean(), secondsLeft }).describe('Whether an instance is logging in upstream right now'),
  reconnect: z
    .object({ failures: z.number().int().min(0), circuitOpen: z.boolean(), secondsLeft })
    .describe('Consecutive failed reconnects; at 7 the circuit is open until secondsLeft pass, a rotation or enable'),
});

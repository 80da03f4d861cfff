// The runtime session as stored in Redis: the runtime DTO of docs/design/syrve.md#syrveiiko-runtime-sessions plus the credential version it was made with.
import * as z from 'zod';
import { decodeJson } from '../../redis/index.ts';

export const sessionRecordSchema = z.strictObject({
  connectionId: z.uuid(),
  organizationId: z.uuid(),
  /** The upstream's session token: allowed only here, in Redis with a TTL — never in PostgreSQL, logs or responses. */
  sessionId: z.string().min(1).max(512),
  createdAtUtc: z.iso.datetime(),
  expiresAtUtc: z.iso.datetime(),
  sessionTransport: z.literal('rest_session'),
  correlationId: z.string().max(128).optional(),
  credentialVersion: z.number().int().positive(),
});

export type SessionRecord = z.infer<typeof sessionRecordSchema>;

/** The stored session if it is readable (schema-checked); a value that is not reads as missing. */
export function decodeSession(raw: string): SessionRecord | undefined {
  return decodeJson(sessionRecordSchema, raw);
}

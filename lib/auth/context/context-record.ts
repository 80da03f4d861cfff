// The active context as stored (registry row activeContext): which organisation and outlet a session works in, as a hint.
import * as z from 'zod';
import { ROLE_CODES } from '../../runtime/tenants/roles.ts';
import type { Deps } from '../../deps.ts';

/**
 * The value at `user:{userId}:context:active:{sessionId}`. The role is a hint for the client (what to show), never a
 * permission: every route that acts checks the role in PostgreSQL again. No session id (it is in the key) and nothing
 * secret.
 */
export const activeContextSchema = z.strictObject({
  userId: z.uuid(),
  organizationId: z.uuid(),
  locationId: z.uuid().nullable(),
  roleCode: z.enum(ROLE_CODES),
  setAtUtc: z.iso.datetime(),
  correlationId: z.string().min(1).max(128),
});

export type ActiveContext = z.infer<typeof activeContextSchema>;

export const contextKey = (deps: Pick<Deps, 'keys'>, session: { userId: string; sessionId: string }) =>
  deps.keys.activeContext(session.userId, session.sessionId);

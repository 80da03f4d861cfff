// The active-context key: which organisation and Outlet a session works in, as a hint.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { uuid } from '../id-segments.ts';
import { json } from '../key-values.ts';
import { userScope } from '../scopes.ts';
import { ROLE_CODES } from './role-codes.ts';

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

export const contextKeys = {
  activeContext: defineKey({
    scope: userScope,
    domain: 'context',
    purpose: 'active',
    id: [uuid('sessionId')],
    // The session's remaining life when set (configurable session length).
    ttl: { varies: true },
    value: json(activeContextSchema),
  }),
};

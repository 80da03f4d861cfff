// The active-context key: which organisation and Outlet a session works in, as a hint.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { scopeIdAgain, uuid } from '../id-segments.ts';
import { json, sortedSet } from '../key-values.ts';
import { UUID_PATTERN } from '../segments.ts';
import { userScope } from '../scopes.ts';
import { ROLE_CODES } from './role-codes.ts';

/**
 * The value at `user:{userId}:context:active:{sessionId}`. The role is a hint for the client (what to show), never a
 * permission: every route that acts checks the role in PostgreSQL again. No session id (it is in the key) and nothing
 * secret.
 */
export const activeContextSchema = z.lazy(() =>
  z.strictObject({
    userId: z.uuid(),
    organizationId: z.uuid(),
    locationId: z.uuid().nullable(),
    roleCode: z.enum(ROLE_CODES),
    setAtUtc: z.iso.datetime(),
    correlationId: z.string().min(1).max(128),
  }),
);
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
  /**
   * The sessions of one user that have an active context, each scored by when that context expires: what lets a
   * member's removal find the contexts that point at the organisation, whatever session set them (one opened in another
   * organisation, an external identity provider's, which PostgreSQL never saw) without a SCAN.
   */
  activeContextIndex: defineKey({
    scope: userScope,
    domain: 'context',
    purpose: 'active-by-user',
    id: [scopeIdAgain('userId')],
    // As long as the longest-lived context it lists (set again with each one).
    ttl: { varies: true },
    value: sortedSet(new RegExp(`^${UUID_PATTERN}$`), 'session ids (UUIDs)', 'unix-seconds'),
  }),
};

// Request and response schemas of the session routes: revocation (own, or a member's) and the active context.
import * as z from 'zod';
import { membershipSchema } from '../../lib/auth/memberships.ts';
import { activeContextSchema } from '../../lib/auth/context/index.ts';
import { memberSessionSchema, ownSessionSchema } from '../../lib/auth/sessions/list-sessions.ts';
import { uuidId } from '../../lib/http/route-schemas.ts';
import { sessionTokensSchema } from '../auth/schemas.ts';

export const memberParams = z.strictObject({ orgId: uuidId, userId: uuidId });

export const sessionParams = z.strictObject({ sessionId: uuidId });

export const ownSessionsResponse = z.object({ sessions: z.array(ownSessionSchema) });

export const memberSessionsResponse = z.object({ sessions: z.array(memberSessionSchema) });

export const sessionsRevokedResponse = z.object({
  revoked: z.number().int().min(0).describe('Sessions this call ended (one already revoked or ended is not counted again).'),
  denylistPending: z
    .array(z.uuid())
    .describe(
      "Sessions whose denylist entry did not land: revoked in PostgreSQL, but their tokens pass until the scheduled denylist repair writes them (within one of its periods). The caller owns these sessions (an admin: the member's, in this organisation).",
    ),
});

export const setContextBody = z.strictObject({
  organizationId: uuidId,
  locationId: uuidId.nullable().optional(),
});

export const contextResponse = z.object({ context: activeContextSchema });

/** Within the session's organisation, the context; after a switch, also the sign-in body: the session's new tokens. */
export const setContextResponse = z.object({
  context: activeContextSchema,
  session: sessionTokensSchema
    .optional()
    .describe(
      'Present only after a switch to another organisation: new access and refresh tokens bound to it (the refresh token held before is spent). Shown once.',
    ),
});

export const membershipsResponse = z.object({ memberships: z.array(membershipSchema) });

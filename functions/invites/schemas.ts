// Request and response schemas of the invitation routes.
import * as z from 'zod';
import { ROLE_CODES } from '../../lib/auth/org-access.ts';
import { inviteSchema } from '../../lib/runtime/invites/index.ts';

export const orgParams = z.strictObject({ orgId: z.uuid() });
export const inviteParams = z.strictObject({ orgId: z.uuid(), inviteId: z.uuid() });

export const createInviteBody = z.strictObject({
  email: z.email().max(254),
  roleCode: z.enum(ROLE_CODES),
  locationId: z.uuid().nullable().optional(),
});

export const listInvitesQuery = z.strictObject({ email: z.email().max(254).optional() });

export const acceptInviteBody = z.strictObject({ token: z.string().min(1).max(256) });

export const createdInviteResponse = z.object({
  invite: inviteSchema,
  token: z.string().describe('Shown once, here only; never stored, logged or returned again.'),
});
export const inviteListResponse = z.object({ invites: z.array(inviteSchema) });
export const acceptedInviteResponse = z.object({
  organizationId: z.uuid(),
  locationId: z.uuid().nullable(),
  roleCode: z.enum(ROLE_CODES),
});

// Request and response schemas of the invitation routes.
import * as z from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../lib/auth/password.ts';
import { emailInput, pageLimit, uuidId } from '../../lib/http/route-schemas.ts';
import { ROLE_CODES } from '../../lib/keys/index.ts';
import { inviteSchema } from '../../lib/runtime/invites/index.ts';

export const inviteParams = z.strictObject({ orgId: uuidId, inviteId: uuidId });

export const createInviteBody = z.strictObject({
  email: emailInput,
  roleCode: z.enum(ROLE_CODES),
  locationId: uuidId.nullable().optional(),
  delivery: z
    .enum(['email', 'none'])
    .default('none')
    .describe("'email': the notifier sends the invitee the link and the answer holds no token; 'none': the token is in the answer"),
});

/** Page size of a list: the default and the most one call may ask for (docs/api.md, List). */
export const LIST_PAGE = { default: 100, max: 500 } as const;

export const listInvitesQuery = z.strictObject({
  email: emailInput.optional(),
  limit: pageLimit(LIST_PAGE),
  cursor: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional()
    .describe("The previous page's nextCursor, as it was given."),
});

/** Page size of the history: the default and the most one call may ask for (docs/api.md, Invite history). */
export const HISTORY_PAGE = { default: 50, max: 100 } as const;

export const inviteHistoryQuery = z.strictObject({
  limit: pageLimit(HISTORY_PAGE),
  cursor: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional()
    .describe("The previous page's nextCursor, as it was given."),
});

export const acceptInviteBody = z.strictObject({ token: z.string().min(1).max(256) });
export const registerInviteBody = z.strictObject({
  token: z.string().min(1).max(256),
  password: z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH).describe("The new account's password: 12 to 256 characters"),
});

export const createdInviteResponse = z.object({
  invite: inviteSchema,
  token: z.string().describe('Shown once, here only; never stored, logged or returned again.'),
});
export const emailedInviteResponse = z.object({
  invite: inviteSchema,
  delivery: z.enum(['sent', 'failed']).describe("'failed': the invite stands; resend it (POST …/{inviteId}/resend)"),
});
export const createInviteResponse = z.union([createdInviteResponse, emailedInviteResponse]);
export const inviteListResponse = z.object({
  invites: z.array(inviteSchema),
  nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next page; null when this page is the last.'),
});
export const acceptedInviteResponse = z.object({
  organizationId: z.uuid(),
  locationId: z.uuid().nullable(),
  roleCode: z.enum(ROLE_CODES),
});
export const inviteHistoryResponse = z.object({
  events: z.array(
    z.object({
      id: z.uuid().describe("The audit event's id"),
      action: z.string().describe('invite.created, invite.resent, invite.cancelled or invite.accepted'),
      actorUserId: z
        .uuid()
        .nullable()
        .describe(
          'Who did it: the admin who created or cancelled, the user who accepted; null when no one did (a void invite) or an API key did',
        ),
      actor: z
        .discriminatedUnion('type', [
          z.object({ type: z.literal('user'), userId: z.uuid() }),
          z.object({ type: z.literal('api_key'), apiKeyId: z.uuid() }),
        ])
        .nullable()
        .describe("Who did it: a person, or the organisation's API key (docs/design/api-keys.md); null when no one did"),
      actorEmail: z
        .string()
        .nullable()
        .describe(
          "The person's email while they hold a role in this organisation and the caller may list its members (an admin, or an API key with members:read); null otherwise: a former member, a key, no one",
        ),
      inviteId: z.uuid().nullable(),
      outletId: z.uuid().nullable().describe("The invite's location, null for an organisation-wide invite"),
      occurredAt: z.iso.datetime(),
      correlationId: z.string(),
      reason: z
        .enum(['member-removed', 'creator-not-admin', 'organization-deleted'])
        .nullable()
        .describe(
          "Why an invite was cancelled when no admin's cancel did it: its creator was removed, lost the admin role, or the organisation was deleted; null otherwise",
        ),
    }),
  ),
  nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next (older) page; null when this page is the last.'),
});

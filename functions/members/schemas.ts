// Request and response schemas of the member routes.
import * as z from 'zod';
import { memberSchema } from '../../lib/auth/members/index.ts';
import { pageLimit, uuidId } from '../../lib/http/route-schemas.ts';
import { ROLE_CODES } from '../../lib/keys/index.ts';

export const memberParams = z.strictObject({ orgId: uuidId, userId: uuidId });

/** Page size of the member list: the default and the most one call may ask for (docs/api.md, Members). */
export const MEMBER_PAGE = { default: 50, max: 100 } as const;

export const listMembersQuery = z.strictObject({
  limit: pageLimit(MEMBER_PAGE),
  cursor: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional()
    .describe("The previous page's nextCursor, as it was given."),
});

export const changeRoleBody = z.strictObject({
  roleCode: z.enum(ROLE_CODES),
  locationId: uuidId
    .nullable()
    .optional()
    .describe("Which of the member's roles changes: the one at this Outlet; absent or null, the organisation-wide one."),
});

export const memberListResponse = z.object({
  members: z.array(memberSchema).describe('One item per role assignment, in the order they were granted.'),
  nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next page; null when this page is the last.'),
});

export const memberResponse = z.object({ member: memberSchema });

// The invite object as stored in Redis (registry row inviteObject) and the public `Invite` of docs/api.md derived from it.
import * as z from 'zod';
import { ROLE_CODES } from '../../keys/index.ts';
import type { InviteRecord } from '../../keys/index.ts';

// The stored shape is declared with its key (lib/keys/defs/invite.ts).
export { inviteRecordSchema, type InviteRecord } from '../../keys/index.ts';

export const inviteSchema = z.object({
  inviteId: z.uuid(),
  organizationId: z.uuid(),
  locationId: z.uuid().nullable(),
  email: z.email(),
  roleCode: z.enum(ROLE_CODES),
  createdByUserId: z.uuid(),
  createdAtUtc: z.iso.datetime(),
  expiresAtUtc: z.iso.datetime(),
  correlationId: z.string(),
  delivery: z.enum(['email', 'none']).describe("How the token reached the invitee: 'email' (the notifier) or 'none' (the create answer)"),
});

export type Invite = z.infer<typeof inviteSchema>;

export function toInvite(record: InviteRecord): Invite {
  return {
    inviteId: record.inviteId,
    organizationId: record.organizationId,
    locationId: record.locationId,
    email: record.normalizedEmail,
    roleCode: record.roleCode,
    createdByUserId: record.createdByUserId,
    createdAtUtc: record.createdAtUtc,
    expiresAtUtc: record.expiresAtUtc,
    correlationId: record.correlationId,
    delivery: record.delivery ?? 'none',
  };
}

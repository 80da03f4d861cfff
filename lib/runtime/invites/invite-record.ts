// The invite object as stored in Redis (registry row inviteObject) and the public `Invite` of docs/api.md derived from it.
import * as z from 'zod';
import { ROLE_CODES } from '../tenants/roles.ts';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

export const inviteRecordSchema = z.strictObject({
  inviteId: z.uuid(),
  storageOrganizationId: z.uuid(),
  organizationId: z.uuid(),
  locationId: z.uuid().nullable(),
  normalizedEmail: z.email(),
  emailHash: hex64,
  tokenHash: hex64,
  roleCode: z.enum(ROLE_CODES),
  createdByUserId: z.uuid(),
  createdAtUtc: z.iso.datetime(),
  expiresAtUtc: z.iso.datetime(),
  correlationId: z.string().min(1).max(128),
  isActive: z.literal(true),
  expiresAtUnixSeconds: z.number().int().positive(),
});

export type InviteRecord = z.infer<typeof inviteRecordSchema>;

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
  };
}

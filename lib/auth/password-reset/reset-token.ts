// What a password-reset token stands for while it lives (1 h): whose password it may set, in which organisation.
import * as z from 'zod';

export const resetSchema = z.strictObject({
  userId: z.uuid(),
  organizationId: z.uuid(),
  issuedAtUtc: z.iso.datetime(),
  correlationId: z.string().min(1).max(128),
});

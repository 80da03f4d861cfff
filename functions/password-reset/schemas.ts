// Request schemas of the password-reset routes.
import * as z from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../lib/auth/password.ts';
import { emailInput, uuidId } from '../../lib/http/route-schemas.ts';

export const requestResetBody = z.strictObject({ organizationId: uuidId, email: emailInput });

export const confirmResetBody = z.strictObject({
  token: z.string().min(1).max(128),
  newPassword: z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH),
});

export const requestedResetResponse = z.object({
  status: z.literal('accepted'),
  message: z.string(),
});

// Request and response schemas of the SSO handoff routes.
import * as z from 'zod';

const audience = z.string().regex(/^[a-z][a-z0-9.-]{0,62}$/, 'an app id: lowercase letters, digits, "." or "-"');

export const issueHandoffBody = z.strictObject({ audience });
export const exchangeHandoffBody = z.strictObject({ code: z.string().min(1).max(128), audience });

export const issuedHandoffResponse = z.object({
  code: z.string().describe('One use, within expiresInSeconds; hand it to the target app (never log it).'),
  expiresInSeconds: z.number().int(),
});
export const exchangedHandoffResponse = z.object({
  tokenType: z.literal('Bearer'),
  accessToken: z.string().describe('A JWT of the same session, for the target audience.'),
  expiresInSeconds: z.number().int(),
  userId: z.uuid(),
  audience: z.string(),
});

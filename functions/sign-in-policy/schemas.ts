// Request and response schemas of the sign-in policy routes.
import * as z from 'zod';
import { signInPolicySchema } from '../../lib/auth/sign-in-policy/policy.ts';

/** The body of PUT is the whole policy: both fields, always. */
export const putPolicyBody = signInPolicySchema;

export const policyResponse = z.object({
  requireMfa: z.boolean(),
  allowedMethods: z.array(z.enum(['password', 'oidc', 'passkey'])).describe('In alphabetical order'),
});

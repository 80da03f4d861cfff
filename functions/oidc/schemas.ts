// Request schemas of the OIDC sign-in routes; the callback's answer is the session of POST /auth/login.
import * as z from 'zod';
import { uuidId } from '../../lib/http/route-schemas.ts';

export { signInResponseSchema } from '../auth/schemas.ts';

/** Any text: an id that is not configured is a 404, whatever it looks like. */
export const providerParams = z.strictObject({ provider: z.string().min(1).max(64) });

export const startQuery = z.strictObject({
  organizationId: uuidId.describe('The organisation to sign in to; it must list the provider, and the account must hold a role there.'),
});

// Not strict: providers add parameters of their own (iss, session_state, scope, authuser…), which oauth4webapi reads or ignores.
const callbackValue = z.string().max(4096).optional();
export const callbackQuery = z.object({
  code: callbackValue.describe('The authorization code (never logged).'),
  state: callbackValue.describe('The state /start issued; good for one callback.'),
  iss: callbackValue,
  error: callbackValue,
  error_description: callbackValue,
});

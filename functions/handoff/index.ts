// The SSO handoff function: issue a one-time code for another app (authenticated), and exchange it (the target app).
import { defineFunction } from '../../lib/auth/define-function.ts';
import { exchangeHandoff } from '../../lib/auth/handoff/exchange-handoff.ts';
import { issueHandoff } from '../../lib/auth/handoff/issue-handoff.ts';
import { canSignTokens } from '../../lib/auth/tokens/access-token.ts';
import { errors } from '../../lib/http/app-error.ts';
import { exchangeHandoffRoute, issueHandoffRoute } from './routes.ts';

// Both answers carry a credential (the code, the token); the exchange is the target app's, with no bearer token (an app
// configured with a client secret sends it as `Authorization: Basic`, lib/auth/handoff/client-auth.ts).
export const handoffFunction = defineFunction({ prefix: '/auth/handoff', auth: 'bearer', noStore: true });

handoffFunction.openapi(issueHandoffRoute, async (c) => {
  const deps = c.get('deps');
  const principal = await c.get('auth').principal();
  if (!canSignTokens(deps.config.auth)) throw errors.NOT_CONFIGURED('SSO handoff (AUTH_SIGNING_KEYS)');
  const outcome = await issueHandoff(deps, { principal, audience: c.req.valid('json').audience, correlationId: c.get('correlationId') });
  if (!outcome.ok) {
    if (outcome.reason === 'no-verified-email') throw errors.FORBIDDEN('a handoff needs a token with a verified email');
    throw errors.VALIDATION_FAILED('audience: not an app this deployment hands sessions to (SSO_HANDOFF_AUDIENCES)');
  }
  return c.json({ code: outcome.code, expiresInSeconds: outcome.expiresInSeconds }, 201);
});

handoffFunction.openapi(exchangeHandoffRoute, async (c) => {
  const { code, audience } = c.req.valid('json');
  const outcome = await exchangeHandoff(c.get('deps'), {
    code,
    audience,
    authorization: c.req.header('authorization'),
    clientIp: c.get('clientIp'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok && outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
  // A refused client secret gets the same answer as a bad code: nothing tells a code thief which of the two failed.
  if (!outcome.ok) throw errors.HANDOFF_INVALID();
  const { accessToken, expiresInSeconds, userId } = outcome;
  return c.json({ tokenType: 'Bearer' as const, accessToken, expiresInSeconds, userId, audience: outcome.audience }, 200);
});

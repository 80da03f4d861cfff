// The OIDC sign-in function: start (redirect to the provider) and callback (consume the state, sign in), both unauthenticated.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { completeOidcSignIn } from '../../lib/auth/oidc/complete-sign-in.ts';
import { startOidcSignIn } from '../../lib/auth/oidc/start-sign-in.ts';
import { canSignTokens } from '../../lib/auth/tokens/access-token.ts';
import { errors } from '../../lib/http/app-error.ts';
import { mfa } from '../../lib/auth/mfa/index.ts';
import { oidcCallbackRoute, startOidcRoute } from './routes.ts';

// no-store on every answer, errors included: these URLs carry a state or a code, and the callback's body carries tokens.
// (Their referrer-policy, no-referrer, is lib/http/security-headers.ts's on every answer.)
export const oidcFunction = defineFunction({ prefix: '/auth/oidc', auth: 'none', noStore: true });

const unknownProvider = () => errors.NOT_FOUND('no such OpenID provider on this deployment');

oidcFunction.openapi(startOidcRoute, async (c) => {
  const deps = c.get('deps');
  // A sign-in that could not end in tokens must not send anyone to the provider.
  if (!canSignTokens(deps.config.auth)) throw errors.NOT_CONFIGURED('sign-in (AUTH_SIGNING_KEYS)');
  const outcome = await startOidcSignIn(deps, {
    providerId: c.req.valid('param').provider,
    organizationId: c.req.valid('query').organizationId,
    clientIp: c.get('clientIp'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'unknown-provider') throw unknownProvider();
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.UPSTREAM_FAILED('identity-provider');
  }
  return c.redirect(outcome.location, 302);
});

oidcFunction.openapi(oidcCallbackRoute, async (c) => {
  const deps = c.get('deps');
  const providerId = c.req.valid('param').provider;
  if (!deps.config.oidcProviders.some((provider) => provider.id === providerId)) throw unknownProvider();
  if (!canSignTokens(deps.config.auth)) throw errors.NOT_CONFIGURED('sign-in (AUTH_SIGNING_KEYS)');
  // The raw query, as the provider sent it: oauth4webapi reads iss and error from it (a repeated parameter never gets here: 400).
  const outcome = await completeOidcSignIn(deps, {
    providerId,
    parameters: new URL(c.req.url).searchParams,
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'unknown-provider') throw unknownProvider();
    if (outcome.reason === 'tenant-suspended') throw errors.TENANT_SUSPENDED();
    throw errors.OIDC_FAILED();
  }
  if (outcome.kind === 'mfa-required') {
    // The provider vouched for the email; a confirmed TOTP factor of ours is still asked for, as after a password.
    const { userId, organizationId, email, credentialEpoch } = outcome.user;
    const challenge = await mfa.issueChallenge(deps, {
      userId,
      organizationId,
      email,
      credentialEpoch,
      correlationId: c.get('correlationId'),
    });
    return c.json({ status: 'mfa-required' as const, ...challenge }, 200);
  }
  return c.json({ status: 'signed-in' as const, ...outcome.tokens }, 200);
});

// The OIDC sign-in function: start (redirect to the provider) and callback (consume the state, sign in), both unauthenticated.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { completeOidcSignIn } from '../../lib/auth/oidc/complete-sign-in.ts';
import { startOidcSignIn } from '../../lib/auth/oidc/start-sign-in.ts';
import { canSignTokens } from '../../lib/auth/tokens/access-token.ts';
import { errors } from '../../lib/http/app-error.ts';
import { issueEnrolment } from '../../lib/auth/sign-in-policy/issue-enrolment.ts';
import { mfa } from '../../lib/auth/mfa/index.ts';
import { clearBindingCookie, readBindingCookie, setBindingCookie } from './binding-cookie.ts';
import { oidcCallbackRoute, startOidcRoute } from './routes.ts';

// no-store on every answer, errors included: these URLs carry a state or a code, and the callback's body carries tokens.
// (Their referrer-policy, no-referrer, is lib/http/security-headers.ts's on every answer.)
export const oidcFunction = defineFunction({ prefix: '/auth/oidc', auth: 'none', noStore: true });

const unknownProvider = () => errors.NOT_FOUND('no such OpenID provider on this deployment');
// One answer for an organisation that does not exist and one that does not allow the provider: nothing to tell apart.
const notForOrganization = () => errors.NOT_FOUND('no such OpenID provider for this organisation');

oidcFunction.openapi(startOidcRoute, async (c) => {
  const deps = c.get('deps');
  // A sign-in that could not end in tokens must not send anyone to the provider.
  if (!canSignTokens(deps.config.auth)) throw errors.NOT_CONFIGURED('sign-in (AUTH_SIGNING_KEYS)');
  const providerId = c.req.valid('param').provider;
  const provider = deps.config.oidcProviders.find((candidate) => candidate.id === providerId);
  if (provider === undefined) throw unknownProvider();
  const outcome = await startOidcSignIn(deps, {
    providerId,
    organizationId: c.req.valid('query').organizationId,
    clientIp: c.get('clientIp'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'unknown-provider') throw notForOrganization();
    if (outcome.reason === 'method-not-allowed') throw errors.SIGN_IN_METHOD_NOT_ALLOWED();
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.UPSTREAM_FAILED('identity-provider');
  }
  // A new start replaces this browser's binding: only its latest sign-in can complete here.
  setBindingCookie(c, provider, outcome.browserBinding, outcome.expiresInSeconds);
  return c.redirect(outcome.location, 302);
});

oidcFunction.openapi(oidcCallbackRoute, async (c) => {
  const deps = c.get('deps');
  const providerId = c.req.valid('param').provider;
  const provider = deps.config.oidcProviders.find((candidate) => candidate.id === providerId);
  if (provider === undefined) throw unknownProvider();
  // Read, then cleared on every answer from here on (error answers keep the headers set on the context): it is good
  // for this one callback, and a browser that got here has no further use for it.
  const browserBinding = readBindingCookie(c, provider);
  clearBindingCookie(c, provider);
  if (!canSignTokens(deps.config.auth)) throw errors.NOT_CONFIGURED('sign-in (AUTH_SIGNING_KEYS)');
  // The raw query, as the provider sent it: oauth4webapi reads iss and error from it (a repeated parameter never gets here: 400).
  const outcome = await completeOidcSignIn(deps, {
    providerId,
    parameters: new URL(c.req.url).searchParams,
    browserBinding,
    userAgent: c.req.header('user-agent'),
    clientIp: c.get('clientIp'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'unknown-provider') throw unknownProvider();
    if (outcome.reason === 'tenant-suspended') throw errors.TENANT_SUSPENDED();
    if (outcome.reason === 'method-not-allowed') throw errors.SIGN_IN_METHOD_NOT_ALLOWED();
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
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
      // The session the code opens is the provider's sign-in with our factor (oidc+totp), not a password's.
      providerId,
      correlationId: c.get('correlationId'),
    });
    return c.json({ status: 'mfa-required' as const, ...challenge }, 200);
  }
  if (outcome.kind === 'mfa-enrolment-required') {
    // The organisation requires a second factor the member has not got: the session opens as oidc+totp once enrolled.
    const { userId, organizationId, email, credentialEpoch } = outcome.user;
    return c.json(
      await issueEnrolment(deps, { userId, organizationId, email, credentialEpoch, providerId, correlationId: c.get('correlationId') }),
      200,
    );
  }
  return c.json({ status: 'signed-in' as const, ...outcome.tokens }, 200);
});

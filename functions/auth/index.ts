// The auth function: sign-in, refresh, logout, and the public keys that verify sign-in's tokens.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { logout } from '../../lib/auth/logout.ts';
import { signIn } from '../../lib/auth/sign-in.ts';
import { refreshSession } from '../../lib/auth/sessions/refresh-session.ts';
import { publicJwks } from '../../lib/auth/tokens/access-token.ts';
import { JWKS_MAX_AGE_SECONDS } from '../../lib/auth/signing-keys/key-ring.ts';
import { errors } from '../../lib/http/app-error.ts';
import { mfa } from '../../lib/auth/mfa/index.ts';
import { issueEnrolment } from '../../lib/auth/sign-in-policy/issue-enrolment.ts';
import { jwksRoute, logoutRoute, refreshRoute, signInRoute } from './routes.ts';

export const authFunction = defineFunction({ prefix: '/auth', auth: 'none' });
/** Where other services look for the keys, beside the sign-in routes that use them. */
export const jwksFunction = defineFunction({ prefix: '/.well-known', auth: 'none' });

authFunction.openapi(signInRoute, async (c) => {
  const body = c.req.valid('json');
  const outcome = await signIn(c.get('deps'), {
    organizationId: body.organizationId,
    email: body.email,
    password: body.password,
    clientIp: c.get('clientIp'),
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    if (outcome.reason === 'not-configured') throw errors.NOT_CONFIGURED('sign-in (AUTH_SIGNING_KEYS)');
    if (outcome.reason === 'tenant-suspended') throw errors.TENANT_SUSPENDED();
    if (outcome.reason === 'method-not-allowed') throw errors.SIGN_IN_METHOD_NOT_ALLOWED();
    throw errors.INVALID_CREDENTIALS();
  }
  if (outcome.kind === 'mfa-required') {
    // The password was right; the session waits for the code (POST /auth/mfa/verify, functions/mfa/).
    const { userId, organizationId, email, credentialEpoch } = outcome.user;
    const challenge = await mfa.issueChallenge(c.get('deps'), {
      userId,
      organizationId,
      email,
      credentialEpoch,
      correlationId: c.get('correlationId'),
    });
    return c.json({ status: 'mfa-required' as const, ...challenge }, 200);
  }
  if (outcome.kind === 'mfa-enrolment-required') {
    // The organisation requires a second factor the user has not got: a token that can only enrol one, then sign in.
    const { userId, organizationId, email, credentialEpoch } = outcome.user;
    return c.json(
      await issueEnrolment(c.get('deps'), { userId, organizationId, email, credentialEpoch, correlationId: c.get('correlationId') }),
      200,
    );
  }
  return c.json({ status: 'signed-in' as const, ...outcome.tokens }, 200);
});

authFunction.openapi(refreshRoute, async (c) => {
  const outcome = await refreshSession(c.get('deps'), {
    refreshToken: c.req.valid('json').refreshToken,
    clientIp: c.get('clientIp'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw outcome.reason === 'suspended' ? errors.TENANT_SUSPENDED() : errors.REFRESH_INVALID();
  }
  return c.json({ status: 'signed-in' as const, ...outcome.tokens }, 200);
});

authFunction.openapi(logoutRoute, async (c) => {
  await logout(c.get('deps'), await c.get('auth').principal(), c.get('correlationId'));
  return c.body(null, 204);
});

jwksFunction.openapi(jwksRoute, async (c) => {
  // Public keys only; caches may keep them a few minutes (a rotation publishes the new key before it signs).
  c.header('cache-control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  return c.json(await publicJwks(c.get('deps')), 200);
});

// The MFA function: TOTP enrolment (the signed-in user) and the second step of an MFA sign-in (anyone holding a challenge).
import { defineFunction } from '../../lib/auth/define-function.ts';
import { confirmMfa } from '../../lib/auth/mfa/confirm-mfa.ts';
import { enrolMfa } from '../../lib/auth/mfa/enrol-mfa.ts';
import { verifyMfa } from '../../lib/auth/mfa/verify-mfa.ts';
import { errors } from '../../lib/http/app-error.ts';
import { confirmRoute, enrolRoute, verifyRoute } from './routes.ts';

// Enrolment is the signed-in user's; the challenge's answer (verify) is public and carries the session's tokens.
export const mfaFunction = defineFunction({ prefix: '/auth/mfa', auth: 'bearer' });

mfaFunction.openapi(enrolRoute, async (c) => {
  const principal = await c.get('auth').principal();
  const outcome = await enrolMfa(c.get('deps'), { userId: principal.userId, correlationId: c.get('correlationId') });
  if (!outcome.ok) {
    if (outcome.reason === 'already-enrolled') throw errors.MFA_ALREADY_ENROLLED();
    if (outcome.reason === 'not-configured') throw errors.NOT_CONFIGURED('MFA enrolment (SECRETS_KEYS)');
    throw errors.FORBIDDEN('MFA enrolment is for accounts of this service');
  }
  // The secret is in this body and nowhere else: no cache may keep it.
  c.header('cache-control', 'no-store');
  return c.json({ secret: outcome.secret, otpauthUri: outcome.otpauthUri }, 201);
});

mfaFunction.openapi(confirmRoute, async (c) => {
  const { code } = c.req.valid('json');
  const principal = await c.get('auth').principal();
  const outcome = await confirmMfa(c.get('deps'), { userId: principal.userId, code, correlationId: c.get('correlationId') });
  if (!outcome.ok) {
    if (outcome.reason === 'already-enrolled') throw errors.MFA_ALREADY_ENROLLED();
    if (outcome.reason === 'no-pending') throw errors.NOT_FOUND('no pending MFA enrolment; POST /auth/mfa/enrol first');
    throw errors.MFA_CODE_INVALID();
  }
  return c.body(null, 204);
});

mfaFunction.openapi(verifyRoute, async (c) => {
  const body = c.req.valid('json');
  const outcome = await verifyMfa(c.get('deps'), {
    ...body,
    clientIp: c.get('clientIp'),
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.MFA_INVALID();
  }
  return c.json({ status: 'signed-in' as const, ...outcome.tokens }, 200);
});

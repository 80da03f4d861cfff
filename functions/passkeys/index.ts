// The passkey function: the signed-in user's passkeys (register after the step-up, list, rename, remove), the public
// passkey sign-in, and the enrolment of a passkey with a sign-in's enrolment token; both of those answer what
// POST /auth/login answers.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { authenticationOptions } from '../../lib/auth/passkeys/authentication-options.ts';
import type { CeremonyRefusal } from '../../lib/auth/passkeys/ceremony-checks.ts';
import { listPasskeys, renamePasskey } from '../../lib/auth/passkeys/list-passkeys.ts';
import { registrationOptions } from '../../lib/auth/passkeys/registration-options.ts';
import { removePasskey } from '../../lib/auth/passkeys/remove-passkey.ts';
import { verifyAuthentication } from '../../lib/auth/passkeys/verify-authentication.ts';
import { verifyRegistration } from '../../lib/auth/passkeys/verify-registration.ts';
import { confirmPasskeyWithToken } from '../../lib/auth/sign-in-policy/confirm-passkey.ts';
import { passkeyEnrolmentOptions } from '../../lib/auth/sign-in-policy/enrol-passkey.ts';
import { errors } from '../../lib/http/app-error.ts';
import { stepUpError } from '../mfa/step-up-error.ts';
import {
  authenticationOptionsRoute,
  authenticationVerifyRoute,
  enrolmentOptionsRoute,
  enrolmentVerifyRoute,
  listRoute,
  registrationOptionsRoute,
  registrationVerifyRoute,
  removeRoute,
  renameRoute,
} from './routes.ts';

export const passkeysFunction = defineFunction({ prefix: '/auth/passkeys', auth: 'bearer' });

function ceremonyError(reason: CeremonyRefusal) {
  switch (reason) {
    case 'response-invalid':
      return errors.PASSKEY_RESPONSE_INVALID();
    case 'challenge-invalid':
      return errors.PASSKEY_CHALLENGE_INVALID();
    case 'challenge-mismatch':
      return errors.PASSKEY_CHALLENGE_MISMATCH();
    case 'origin-mismatch':
      return errors.PASSKEY_ORIGIN_MISMATCH();
  }
}

passkeysFunction.openapi(registrationOptionsRoute, async (c) => {
  const { password, code } = c.req.valid('json');
  const principal = await c.get('auth').principal();
  const outcome = await registrationOptions(c.get('deps'), {
    userId: principal.userId,
    sessionId: principal.sessionId,
    organizationId: principal.organizationId,
    password,
    code,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw stepUpError(outcome);
  return c.json(outcome.options, 200);
});

passkeysFunction.openapi(registrationVerifyRoute, async (c) => {
  const { response, name } = c.req.valid('json');
  const principal = await c.get('auth').principal();
  const outcome = await verifyRegistration(c.get('deps'), {
    userId: principal.userId,
    organizationId: principal.organizationId,
    response,
    name,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw outcome.reason === 'exists' ? errors.PASSKEY_EXISTS() : ceremonyError(outcome.reason);
  return c.json({ passkey: outcome.passkey }, 201);
});

passkeysFunction.openapi(listRoute, async (c) => {
  const principal = await c.get('auth').principal();
  return c.json({ passkeys: await listPasskeys(c.get('deps'), principal.userId) }, 200);
});

passkeysFunction.openapi(renameRoute, async (c) => {
  const { passkeyId } = c.req.valid('param');
  const { name } = c.req.valid('json');
  const principal = await c.get('auth').principal();
  const passkey = await renamePasskey(c.get('deps'), { userId: principal.userId, passkeyId, name });
  if (passkey === undefined) throw errors.NOT_FOUND('no such passkey of yours');
  return c.json({ passkey }, 200);
});

passkeysFunction.openapi(removeRoute, async (c) => {
  const { passkeyId } = c.req.valid('param');
  const { password, code } = c.req.valid('json');
  const principal = await c.get('auth').principal();
  const outcome = await removePasskey(c.get('deps'), {
    userId: principal.userId,
    sessionId: principal.sessionId,
    passkeyId,
    password,
    code,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw outcome.reason === 'not-found' ? errors.NOT_FOUND('no such passkey of yours') : stepUpError(outcome);
  return c.body(null, 204);
});

passkeysFunction.openapi(authenticationOptionsRoute, async (c) => {
  const { organizationId } = c.req.valid('json');
  const outcome = await authenticationOptions(c.get('deps'), {
    organizationId,
    clientIp: c.get('clientIp'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
  return c.json(outcome.options, 200);
});

passkeysFunction.openapi(authenticationVerifyRoute, async (c) => {
  const { organizationId, response } = c.req.valid('json');
  const outcome = await verifyAuthentication(c.get('deps'), {
    organizationId,
    response,
    clientIp: c.get('clientIp'),
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    switch (outcome.reason) {
      case 'rate-limited':
        throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
      case 'not-configured':
        throw errors.NOT_CONFIGURED('sign-in (AUTH_SIGNING_KEYS)');
      case 'not-accepted':
        throw errors.PASSKEY_NOT_ACCEPTED();
      case 'counter-regressed':
        throw errors.PASSKEY_COUNTER_REGRESSED();
      case 'tenant-suspended':
        throw errors.TENANT_SUSPENDED();
      default:
        throw ceremonyError(outcome.reason);
    }
  }
  // The body of a signed-in POST /auth/login (functions/auth/): clients handle both alike.
  return c.json({ status: 'signed-in' as const, ...outcome.tokens }, 200);
});

passkeysFunction.openapi(enrolmentOptionsRoute, async (c) => {
  const { enrolmentToken } = c.req.valid('json');
  const outcome = await passkeyEnrolmentOptions(c.get('deps'), { enrolmentToken, correlationId: c.get('correlationId') });
  if (!outcome.ok) throw outcome.reason === 'method-not-allowed' ? errors.SIGN_IN_METHOD_NOT_ALLOWED() : errors.ENROLMENT_INVALID();
  return c.json(outcome.options, 200);
});

passkeysFunction.openapi(enrolmentVerifyRoute, async (c) => {
  const { enrolmentToken, response, name } = c.req.valid('json');
  const outcome = await confirmPasskeyWithToken(c.get('deps'), {
    enrolmentToken,
    response,
    name,
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'invalid') throw errors.ENROLMENT_INVALID();
    throw outcome.reason === 'exists' ? errors.PASSKEY_EXISTS() : ceremonyError(outcome.reason);
  }
  return c.json({ status: 'signed-in' as const, ...outcome.tokens }, 200);
});

// The MFA function: TOTP enrolment, recovery codes and removal (the signed-in user, with the password and a code), and
// the second step of an MFA sign-in (anyone holding a challenge), with a TOTP code or a recovery code.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { confirmMfa } from '../../lib/auth/mfa/confirm-mfa.ts';
import { enrolMfa } from '../../lib/auth/mfa/enrol-mfa.ts';
import { recoverMfa } from '../../lib/auth/mfa/recover-mfa.ts';
import { removeMfa } from '../../lib/auth/mfa/remove-mfa.ts';
import { replaceRecoveryCodes } from '../../lib/auth/mfa/replace-recovery-codes.ts';
import type { VerifyMfaOutcome } from '../../lib/auth/mfa/verify-mfa.ts';
import { verifyMfa } from '../../lib/auth/mfa/verify-mfa.ts';
import { errors } from '../../lib/http/app-error.ts';
import { confirmTotpWithToken } from '../../lib/auth/sign-in-policy/confirm-totp.ts';
import { enrolTotpWithToken } from '../../lib/auth/sign-in-policy/enrol-totp.ts';
import {
  confirmRoute,
  confirmWithTokenRoute,
  enrolRoute,
  enrolWithTokenRoute,
  recoverRoute,
  removeRoute,
  replaceCodesRoute,
  verifyRoute,
} from './routes.ts';
import { stepUpError } from './step-up-error.ts';

// Enrolment is the signed-in user's; the challenge's answer (verify) is public and carries the session's tokens.
export const mfaFunction = defineFunction({ prefix: '/auth/mfa', auth: 'bearer' });

function signedInOrRefused(outcome: VerifyMfaOutcome) {
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.MFA_INVALID();
  }
  return { status: 'signed-in' as const, ...outcome.tokens };
}

mfaFunction.openapi(enrolRoute, async (c) => {
  const { password } = c.req.valid('json');
  const principal = await c.get('auth').principal();
  const outcome = await enrolMfa(c.get('deps'), {
    userId: principal.userId,
    sessionId: principal.sessionId,
    password,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'already-enrolled') throw errors.MFA_ALREADY_ENROLLED();
    if (outcome.reason === 'not-configured') throw errors.NOT_CONFIGURED('MFA enrolment (SECRETS_KEYS)');
    throw stepUpError(outcome);
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
  return c.json({ recoveryCodes: outcome.recoveryCodes }, 200);
});

mfaFunction.openapi(verifyRoute, async (c) => {
  const body = c.req.valid('json');
  const outcome = await verifyMfa(c.get('deps'), {
    ...body,
    clientIp: c.get('clientIp'),
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
  });
  return c.json(signedInOrRefused(outcome), 200);
});

mfaFunction.openapi(recoverRoute, async (c) => {
  const body = c.req.valid('json');
  const outcome = await recoverMfa(c.get('deps'), {
    ...body,
    clientIp: c.get('clientIp'),
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
  });
  return c.json(signedInOrRefused(outcome), 200);
});

mfaFunction.openapi(replaceCodesRoute, async (c) => {
  const { password, code } = c.req.valid('json');
  const principal = await c.get('auth').principal();
  const outcome = await replaceRecoveryCodes(c.get('deps'), {
    userId: principal.userId,
    sessionId: principal.sessionId,
    password,
    code,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw stepUpError(outcome);
  return c.json({ recoveryCodes: outcome.recoveryCodes }, 200);
});

mfaFunction.openapi(removeRoute, async (c) => {
  const body = c.req.valid('json');
  const principal = await c.get('auth').principal();
  const outcome = await removeMfa(c.get('deps'), {
    userId: principal.userId,
    sessionId: principal.sessionId,
    password: body.password,
    factorProof: 'code' in body ? { code: body.code } : { recoveryCode: body.recoveryCode },
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw stepUpError(outcome);
  return c.body(null, 204);
});

mfaFunction.openapi(enrolWithTokenRoute, async (c) => {
  const { enrolmentToken } = c.req.valid('json');
  const outcome = await enrolTotpWithToken(c.get('deps'), { enrolmentToken, correlationId: c.get('correlationId') });
  if (!outcome.ok) {
    if (outcome.reason === 'already-enrolled') throw errors.MFA_ALREADY_ENROLLED();
    if (outcome.reason === 'not-configured') throw errors.NOT_CONFIGURED('MFA enrolment (SECRETS_KEYS)');
    throw errors.ENROLMENT_INVALID();
  }
  c.header('cache-control', 'no-store');
  return c.json({ secret: outcome.secret, otpauthUri: outcome.otpauthUri }, 201);
});

mfaFunction.openapi(confirmWithTokenRoute, async (c) => {
  const { enrolmentToken, code } = c.req.valid('json');
  const outcome = await confirmTotpWithToken(c.get('deps'), {
    enrolmentToken,
    code,
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'already-enrolled') throw errors.MFA_ALREADY_ENROLLED();
    if (outcome.reason === 'no-pending') throw errors.NOT_FOUND('no pending MFA enrolment; POST /auth/mfa/enrolment/totp first');
    if (outcome.reason === 'wrong-code') throw errors.MFA_CODE_INVALID();
    throw errors.ENROLMENT_INVALID();
  }
  return c.json({ status: 'signed-in' as const, ...outcome.tokens, recoveryCodes: outcome.recoveryCodes }, 200);
});

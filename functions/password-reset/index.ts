// The password-reset function: request a link (one answer for every email), the page it opens, and confirm.
import { defineFunction } from '../../lib/auth/define-function.ts';
import { confirmReset } from '../../lib/auth/password-reset/confirm-reset.ts';
import { requestReset } from '../../lib/auth/password-reset/request-reset.ts';
import { errors } from '../../lib/http/app-error.ts';
import { resetPage } from './page.ts';
import { confirmResetRoute, requestResetRoute, resetPageRoute } from './routes.ts';

// Nothing of a reset flow is cached; no page of it tells the next site where the visitor came from either, which
// lib/http/security-headers.ts's referrer-policy already says on every answer.
export const passwordResetFunction = defineFunction({ prefix: '/auth/password-reset', auth: 'none', noStore: true });

passwordResetFunction.openapi(requestResetRoute, async (c) => {
  const body = c.req.valid('json');
  const outcome = await requestReset(
    c.get('deps'),
    { organizationId: body.organizationId, email: body.email, clientIp: c.get('clientIp'), correlationId: c.get('correlationId') },
    c.get('defer'),
  );
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    throw errors.NOT_CONFIGURED('password reset (PASSWORD_RESET_LINK_BASE)');
  }
  return c.json(
    { status: 'accepted' as const, message: 'if this email belongs to a member of the organisation, a reset link is on its way' },
    202,
  );
});

passwordResetFunction.openapi(confirmResetRoute, async (c) => {
  const { token, newPassword } = c.req.valid('json');
  const outcome = await confirmReset(c.get('deps'), {
    token,
    newPassword,
    clientIp: c.get('clientIp'),
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'rate-limited') throw errors.RATE_LIMITED(outcome.retryAfterSeconds);
    if (outcome.reason === 'password-breached') throw errors.PASSWORD_BREACHED();
    if (outcome.reason === 'breach-check-unavailable') throw errors.BREACH_CHECK_UNAVAILABLE();
    throw errors.RESET_INVALID();
  }
  return c.body(null, 204);
});

passwordResetFunction.openapi(resetPageRoute, async (c) => {
  const page = await resetPage();
  c.header('content-security-policy', page.contentSecurityPolicy);
  c.header('x-content-type-options', 'nosniff');
  c.header('x-frame-options', 'DENY');
  return c.html(page.html, 200);
});

// Middleware: a bearer token is accepted on its signature, claims and the denylist alone — one Redis round trip, no PostgreSQL.
import { createMiddleware } from 'hono/factory';
import { AppError, errors } from '../http/app-error.ts';
import type { Guard } from '../http/function-factory.ts';
import type { HonoEnv } from '../http/hono-env.ts';
import { checkRateLimit, rateLimitHeaders, refundTenantCount, rememberedRefusal, rememberRefusal } from '../runtime/ratelimit/index.ts';
import { startRevocationCheck } from './authentication.ts';
import { rateLimitedError, rateLimitTarget } from './rate-limit-target.ts';
import { createTokenVerifier, type VerifyToken } from './verify-token.ts';
import type { Config } from '../config/index.ts';

const verifiers = new WeakMap<Config, VerifyToken>();
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

/**
 * Starts the revocation check and lets the route go on beside it (docs/design/revocation.md#reads-beside-the-revocation-check):
 * the handler gets its principal only through `c.get('auth').principal()` or `authorizeOrgAdmin`, which wait for the
 * check. Whatever the route answered (400, 403, 404 …), a revoked token ends as 401 and an unanswered check as 503.
 * The rate limiter's one count runs beside the check on the main store and gates the principal with it, so it adds no
 * round trip in sequence; a caller this isolate already refused is refused before either starts
 * (docs/design/limits.md#api-rate-limits). Every answer the count decided carries the RateLimit fields.
 */
export const requireAuth = createMiddleware<HonoEnv>(async (c, next) => {
  const deps = c.get('deps');
  const match = BEARER.exec(c.req.header('authorization') ?? '');
  if (match?.[1] === undefined) throw errors.UNAUTHENTICATED();
  const principal = await verifierFor(deps.config)(match[1]);
  if (principal === undefined) throw errors.UNAUTHENTICATED('the bearer token is invalid or expired');
  const target = rateLimitTarget(c, principal.userId);
  // A token bound to one organisation names another: refused as an outsider is, on the claim alone, before anything
  // is counted or read there (docs/design/tenants.md#tenant-isolation).
  if (principal.organizationId !== undefined && target.organizationId !== undefined && target.organizationId !== principal.organizationId) {
    throw errors.FORBIDDEN();
  }
  const remembered = rememberedRefusal(deps, target, deps.clock.now());
  if (remembered !== undefined) throw rateLimitedError(remembered);
  const limit = checkRateLimit(deps, target, { correlationId: c.get('correlationId'), defer: c.get('defer') });
  const auth = startRevocationCheck(deps, principal, c.get('defer'), limit);
  c.set('auth', auth);
  await next();
  const refusal = await auth.principal().then(
    () => undefined,
    (error: unknown) => error,
  );
  const decision = await limit;
  // Remembered only when the 429 is the answer (not behind a 401 or a 503), so the isolate refuses it again for free.
  if (decision?.allowed === false && refusal instanceof AppError && refusal.code === 'RATE_LIMITED') {
    rememberRefusal(deps, target, decision, deps.clock.now());
  }
  // Already the answer when the handler waited for it; otherwise (a validation failure, a 404) it becomes the answer now.
  if (refusal !== undefined && c.error !== refusal) throw refusal;
  if (decision?.allowed !== true) return;
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
  // The organisation's role check refused the caller (an outsider, or a member without the role): the request did no
  // work there, so the tenant gets its count back and only the caller's own limits keep it.
  if (decision.tenantCounter !== undefined && c.error instanceof AppError && c.error.code === 'FORBIDDEN') {
    const refund = refundTenantCount(deps, decision.tenantCounter);
    const defer = c.get('defer');
    if (defer !== undefined) defer(refund);
    else await refund;
  }
});

/** The guard of a function's `auth: 'bearer'` routes (lib/auth/define-function.ts): a JWT, as the document's bearerAuth. */
export const bearerGuard: Guard = {
  middleware: requireAuth,
  securityScheme: { name: 'bearerAuth', bearerFormat: 'JWT' },
  // No or a bad token; a revoked one; a denylist that did not answer (lib/auth/authentication.ts); over a rate limit.
  errors: ['UNAUTHENTICATED', 'TOKEN_REVOKED', 'RATE_LIMITED', 'REVOCATION_UNAVAILABLE'],
  // On every answer the rate limiter counted (docs/api.md#authentication); absent while its store cannot answer.
  answerHeaders: {
    'ratelimit-policy': {
      description: 'The API rate limits counted, e.g. `"user-route";q=100;w=60, "user";q=1000;w=60`',
      schema: { type: 'string' },
    },
    ratelimit: {
      description: 'What each has left and in how many seconds it resets, e.g. `"user-route";r=99;t=30, …`',
      schema: { type: 'string' },
    },
  },
};

function verifierFor(config: Config): VerifyToken {
  let verify = verifiers.get(config);
  if (verify === undefined) {
    verify = createTokenVerifier(config.auth, { maxLifetimeSeconds: config.accessTokenMaxLifetimeSeconds });
    verifiers.set(config, verify);
  }
  return verify;
}

// Middleware: a bearer token is accepted on its signature, claims and the denylist alone — one Redis round trip, no PostgreSQL.
import { createMiddleware } from 'hono/factory';
import { AppError, errors } from '../http/app-error.ts';
import type { Guard } from '../http/function-factory.ts';
import type { HonoEnv } from '../http/hono-env.ts';
import {
  checkRateLimit,
  rateLimitHeaders,
  refundTenantCount,
  rememberedRefusal,
  rememberRefusal,
  withoutTenant,
  type RateLimitDecision,
} from '../runtime/ratelimit/index.ts';
import { API_KEY_BEARER, requireApiKey } from './api-keys/require-api-key.ts';
import { startRevocationCheck } from './authentication.ts';
import { rateLimitedError, rateLimitTarget } from './rate-limit-target.ts';
import { RoleAdmission } from './role-admission.ts';
import { signingKeyRingFor } from './signing-keys/ring-for-config.ts';
import { createTokenVerifier, type VerifyToken } from './verify-token.ts';
import type { Config } from '../config/index.ts';
import type { Deps } from '../deps.ts';

const verifiers = new WeakMap<Config, WeakMap<Deps['clock'], VerifyToken>>();
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

/**
 * Starts the revocation check and lets the route go on beside it (docs/design/revocation.md#reads-beside-the-revocation-check):
 * the handler gets its principal only through `c.get('auth').principal()` or `authorizeOrgAdmin`, which wait for the
 * check. Whatever the route answered (400, 403, 404 …), a revoked token ends as 401 and an unanswered check as 503.
 * The rate limiter's count runs beside the check on the main store and gates the principal with it, so it adds no
 * round trip in sequence; a caller this isolate already refused is refused from memory once the revocation check has
 * answered (so a revoked token is 401, never 429), without a count (docs/design/limits.md#api-rate-limits).
 * On an organisation's route the tenant's share belongs to the members the role check admits
 * (docs/design/limits.md#outsiders-spend-nothing): a request it did not serve gives its tenant count back, whatever
 * the answer; only an admitted caller sees the tenant's RateLimit fields, or has a tenant refusal remembered.
 */
export const requireAuth = createMiddleware<HonoEnv>(async (c, next) => {
  const deps = c.get('deps');
  const key = API_KEY_BEARER.exec(c.req.header('authorization') ?? '')?.[1];
  if (key !== undefined) return requireApiKey(c, next, key);
  const match = BEARER.exec(c.req.header('authorization') ?? '');
  if (match?.[1] === undefined) throw errors.UNAUTHENTICATED();
  const principal = await verifierFor(deps)(match[1]);
  if (principal === undefined) throw errors.UNAUTHENTICATED('the bearer token is invalid or expired');
  const target = rateLimitTarget(c, principal.userId);
  // A token bound to one organisation names another: refused as an outsider is, on the claim alone, before anything
  // is counted or read there (docs/design/tenants.md#tenant-isolation).
  if (principal.organizationId !== undefined && target.organizationId !== undefined && target.organizationId !== principal.organizationId) {
    throw errors.FORBIDDEN();
  }
  const defer = c.get('defer');
  // An unbound token names any organisation it likes: its own limits also count in the user's scope.
  const acrossOrganisations = principal.organizationId === undefined && target.organizationId !== undefined;
  const remembered = rememberedRefusal(deps, target, deps.clock.now(), acrossOrganisations);
  if (remembered !== undefined) {
    // Rejects with 401 or 503 before the remembered 429 (one round trip to the denylist store, none to the main one).
    await startRevocationCheck(deps, principal, defer, Promise.resolve(remembered)).principal();
    throw rateLimitedError(remembered);
  }
  const admission = new RoleAdmission();
  const counting = checkRateLimit(deps, target, {
    correlationId: c.get('correlationId'),
    defer,
    acrossOrganisations,
    roleAdmitted: () => admission.admitted(),
  });
  const limit = counting.then((count) => count.decision);
  const auth = startRevocationCheck(deps, principal, defer, limit, admission);
  c.set('auth', auth);
  await next();
  admission.close();
  const refusal = await auth.principal().then(
    () => undefined,
    (error: unknown) => error,
  );
  const { decision, tenantCounter } = await counting;
  const admitted = target.organizationId === undefined || (await admission.admitted());
  if (tenantCounter !== undefined && !(admitted && refusal === undefined)) {
    const refund = refundTenantCount(deps, tenantCounter);
    if (defer !== undefined) defer(refund);
    else await refund;
  }
  if (decision === undefined) {
    // Already the answer when the handler waited for it; otherwise (a validation failure, a 404) it becomes the answer now.
    if (refusal !== undefined && c.error !== refusal) throw refusal;
    return;
  }
  const shown = admitted ? decision : withoutTenant(decision);
  if (refusal instanceof AppError && refusal.code === 'RATE_LIMITED') {
    if (!shown.allowed) {
      // Remembered only when the 429 is the answer (not behind a 401 or a 503), so the isolate refuses it again for free.
      rememberRefusal(deps, target, shown, deps.clock.now(), admitted);
      if (admitted && c.error !== refusal) throw refusal;
      if (!admitted) throw rateLimitedError(shown);
      return;
    }
    // Only the tenant's limit refused a caller the role check did not admit: the route's own answer stands, the one the
    // tenant's state does not change (the role check's 403, or a validation failure that came before it).
    throw withFields(admission.refusal() ?? (c.error !== refusal ? c.error : undefined) ?? errors.FORBIDDEN(), shown);
  }
  if (refusal !== undefined && c.error !== refusal) throw refusal;
  if (!shown.allowed || refusal !== undefined) return;
  for (const [name, value] of Object.entries(rateLimitHeaders(shown))) c.header(name, value);
});

/** `error` as the answer, with the RateLimit fields of what the caller may see; anything else unexpected goes on as is. */
function withFields(error: unknown, decision: RateLimitDecision): unknown {
  if (!(error instanceof AppError)) return error;
  return new AppError(error.code, error.message, { ...error.headers, ...rateLimitHeaders(decision) });
}

/** The guard of a function's `auth: 'bearer'` routes (lib/auth/define-function.ts): a JWT, as the document's bearerAuth. */
export const bearerGuard: Guard = {
  middleware: requireAuth,
  securityScheme: { name: 'bearerAuth', bearerFormat: 'JWT' },
  // No or a bad token; a revoked one; a denylist that did not answer (lib/auth/authentication.ts); over a rate limit.
  // An API key where the route declares no scope, or beyond its scopes (lib/auth/api-keys/require-api-key.ts).
  errors: ['UNAUTHENTICATED', 'TOKEN_REVOKED', 'RATE_LIMITED', 'REVOCATION_UNAVAILABLE', 'SCOPE_MISSING'],
  keyed: true,
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

/** One per configuration and clock, as its signing-key ring is (lib/auth/signing-keys/ring-for-config.ts). */
function verifierFor(deps: Deps): VerifyToken {
  const { config, clock } = deps;
  let byClock = verifiers.get(config);
  if (byClock === undefined) verifiers.set(config, (byClock = new WeakMap()));
  let verify = byClock.get(clock);
  if (verify === undefined) {
    const storedKeys = signingKeyRingFor(deps);
    verify = createTokenVerifier(config.auth, {
      maxLifetimeSeconds: config.accessTokenMaxLifetimeSeconds,
      ...(storedKeys !== undefined ? { storedKeys } : {}),
    });
    byClock.set(clock, verify);
  }
  return verify;
}

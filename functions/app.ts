// Composes every function into one Hono app; the Workers, Node and Lambda entries all serve this.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, ExecutionContext } from 'hono';
import type { H, RouterRoute } from 'hono/types';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { errorBody, errors } from '../lib/http/app-error.ts';
import { correlation } from '../lib/http/correlation.ts';
import { corsForConfiguredOrigins } from '../lib/http/cors.ts';
import { handleError } from '../lib/http/error-handler.ts';
import type { HonoEnv } from '../lib/http/hono-env.ts';
import { securityHeaders } from '../lib/http/security-headers.ts';
import { validationHook } from '../lib/http/validation.ts';
import type { Deps } from '../lib/deps.ts';
import { GrowingRouter } from '../lib/http/growing-router.ts';
import { mountOnFirstRequest, type LazyMount } from '../lib/http/mount-on-first-request.ts';
import type { RunstateFunction } from '../lib/http/function-factory.ts';
import { CONSOLE_PREFIX } from './console/prefix.ts';
import { deliverAfterAnswer } from '../lib/events/delivery/after-answer.ts';
import { OPENAPI_PATH, serveOpenApiDocument } from './openapi-document.ts';

/** Request bodies of this API are small JSON documents. */
const MAX_BODY_BYTES = 16 * 1024;

/** A function by its prefix and its module, loaded on the prefix's first request; its own prefix must be this one. */
function lazyFunction(prefix: string, load: () => Promise<RunstateFunction<string>>): LazyMount {
  return {
    prefix,
    load: async () => {
      const fn = await load();
      if (fn.prefix !== prefix) throw new Error(`functions/app.ts mounts at ${prefix} the function defined at ${fn.prefix}`);
      return fn.app;
    },
  };
}

/**
 * Every function, each mounted at its own prefix (its routes' paths are relative to it). A function's guard and
 * no-store belong to its routes alone (lib/http/function-factory.ts), so prefixes may nest (/auth, /auth/mfa) and a
 * request meets at most one guard: that of the route it reaches. Each module is imported when a request first falls
 * under its prefix (docs/design/layers.md says why), and its routes then match in this order, as if mounted at start.
 */
const FUNCTION_MOUNTS: LazyMount[] = [
  lazyFunction('/healthz', async () => (await import('./health/index.ts')).healthFunction),
  lazyFunction('/auth', async () => (await import('./auth/index.ts')).authFunction),
  lazyFunction('/.well-known', async () => (await import('./auth/index.ts')).jwksFunction),
  lazyFunction('/auth/handoff', async () => (await import('./handoff/index.ts')).handoffFunction),
  lazyFunction('/auth', async () => (await import('./sessions/index.ts')).sessionsFunction),
  lazyFunction('/orgs/:orgId/members', async () => (await import('./sessions/index.ts')).memberSessionsFunction),
  lazyFunction('/orgs/:orgId/members', async () => (await import('./members/index.ts')).membersFunction),
  lazyFunction('/orgs/:orgId/api-keys', async () => (await import('./api-keys/index.ts')).apiKeysFunction),
  lazyFunction('/orgs/:orgId/sign-in-policy', async () => (await import('./sign-in-policy/index.ts')).signInPolicyFunction),
  lazyFunction('/auth/password-reset', async () => (await import('./password-reset/index.ts')).passwordResetFunction),
  lazyFunction('/auth/mfa', async () => (await import('./mfa/index.ts')).mfaFunction),
  lazyFunction('/auth/passkeys', async () => (await import('./passkeys/index.ts')).passkeysFunction),
  lazyFunction('/auth/oidc', async () => (await import('./oidc/index.ts')).oidcFunction),
  lazyFunction('/orgs/:orgId/invites', async () => (await import('./invites/index.ts')).invitesFunction),
  lazyFunction('/invites', async () => (await import('./invites/index.ts')).inviteAcceptanceFunction),
  lazyFunction('/orgs/:orgId/syrve/connections', async () => (await import('./syrve/index.ts')).syrveFunction),
  lazyFunction('/orgs/:orgId/webhook-endpoints', async () => (await import('./webhook-endpoints/index.ts')).webhookEndpointsFunction),
  lazyFunction('/webhooks', async () => (await import('./webhooks/index.ts')).webhooksFunction),
  lazyFunction('/orgs/:orgId/audit/exports', async () => (await import('./audit-exports/index.ts')).auditExportsFunction),
  lazyFunction('/public/tenants', async () => (await import('./tenants/index.ts')).tenantResolveFunction),
  lazyFunction('/orgs/:orgId', async () => (await import('./tenants/index.ts')).tenantSettingsFunction),
  lazyFunction('/ops/tenants/:orgId', async () => (await import('./ops/index.ts')).opsFunction),
  lazyFunction('/ops/users/:userId', async () => (await import('./ops/index.ts')).opsUsersFunction),
];

export type ResolveDeps = (c: Context<HonoEnv>) => Deps | Promise<Deps>;

export interface AppOptions {
  /** The caller's address as this runtime's edge reports it (never a header a client can set freely); unset: unknown. */
  clientIp?: (c: Context<HonoEnv>) => string | undefined;
  /** How this runtime keeps work going after the response (Workers: waitUntil); unset: handlers await such work. */
  defer?: (c: Context<HonoEnv>, work: Promise<unknown>) => void;
}

/** Workers' ExecutionContext of this request; other runtimes have none (Hono's getter throws then). */
function executionContextOf(c: Context<HonoEnv>): ExecutionContext | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

export function createApp(resolveDeps: ResolveDeps, options: AppOptions = {}): OpenAPIHono<HonoEnv> {
  const router = new GrowingRouter<[H, RouterRoute]>();
  const app = new OpenAPIHono<HonoEnv>({ defaultHook: validationHook, router });
  // The console, last: it hands the page's calls back to this same app, with this request's bindings and execution context.
  const consoleMount: LazyMount = {
    prefix: CONSOLE_PREFIX,
    load: async () =>
      (await import('./console/index.ts')).createConsoleFunction((request, c) => app.fetch(request, c.env, executionContextOf(c))),
  };
  const mountFailed = mountOnFirstRequest(app, router, [...FUNCTION_MOUNTS, consoleMount], OPENAPI_PATH);
  // First, so its headers land on every answer: handlers', the error handler's, the not-found one, a preflight.
  app.use(securityHeaders);
  app.use(correlation);
  app.use(
    createMiddleware<HonoEnv>(async (c, next) => {
      c.set('deps', await resolveDeps(c));
      c.set('clientIp', options.clientIp?.(c));
      const defer = options.defer;
      const deferred = defer === undefined ? undefined : (work: Promise<unknown>) => defer(c, work);
      c.set('defer', deferred);
      await next();
      // After the answer is made: the webhook deliveries this request's change wrote, if any (no store call otherwise).
      deliverAfterAnswer(c.get('deps'), deferred, c.get('correlationId'));
    }),
  );
  // After Deps, so the error handler logs a function that failed to load as any other error.
  app.use(mountFailed);
  // After Deps (CORS_ORIGINS is configuration), before the body limit: a preflight has no body and is answered here.
  // Never on the console: its session is in cookies, and no other origin may read what they unlock (docs/console.md).
  app.use(corsForConfiguredOrigins({ exceptUnder: [CONSOLE_PREFIX] }));
  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw errors.VALIDATION_FAILED(`request body larger than ${MAX_BODY_BYTES} bytes`);
      },
    }),
  );
  serveOpenApiDocument(app);
  app.notFound((c) => c.json(errorBody(errors.NOT_FOUND('no such route')), 404));
  app.onError(handleError);
  return app;
}

// Composes every function into one Hono app; the Workers, Node and Lambda entries all serve this.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, ExecutionContext } from 'hono';
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
import { auditExportsFunction } from './audit-exports/index.ts';
import { authFunction, jwksFunction } from './auth/index.ts';
import { CONSOLE_PREFIX, createConsoleFunction } from './console/index.ts';
import { handoffFunction } from './handoff/index.ts';
import { healthFunction } from './health/index.ts';
import { inviteAcceptanceFunction, invitesFunction } from './invites/index.ts';
import { membersFunction } from './members/index.ts';
import { mfaFunction } from './mfa/index.ts';
import { oidcFunction } from './oidc/index.ts';
import { serveOpenApiDocument } from './openapi-document.ts';
import { opsFunction, opsUsersFunction } from './ops/index.ts';
import { passkeysFunction } from './passkeys/index.ts';
import { passwordResetFunction } from './password-reset/index.ts';
import { memberSessionsFunction, sessionsFunction } from './sessions/index.ts';
import { syrveFunction } from './syrve/index.ts';
import { tenantResolveFunction, tenantSettingsFunction } from './tenants/index.ts';
import { webhooksFunction } from './webhooks/index.ts';

/** Request bodies of this API are small JSON documents. */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * Every function, each mounted at its own prefix (its routes' paths are relative to it). A function's guard and
 * no-store belong to its routes alone (lib/http/function-factory.ts), so prefixes may nest (/auth, /auth/mfa) and a
 * request meets at most one guard: that of the route it reaches.
 */
const FUNCTION_MOUNTS = [
  healthFunction,
  authFunction,
  jwksFunction,
  handoffFunction,
  sessionsFunction,
  memberSessionsFunction,
  membersFunction,
  passwordResetFunction,
  mfaFunction,
  passkeysFunction,
  oidcFunction,
  invitesFunction,
  inviteAcceptanceFunction,
  syrveFunction,
  webhooksFunction,
  auditExportsFunction,
  tenantResolveFunction,
  tenantSettingsFunction,
  opsFunction,
  opsUsersFunction,
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
  const app = new OpenAPIHono<HonoEnv>({ defaultHook: validationHook });
  // First, so its headers land on every answer: handlers', the error handler's, the not-found one, a preflight.
  app.use(securityHeaders);
  app.use(correlation);
  app.use(
    createMiddleware<HonoEnv>(async (c, next) => {
      c.set('deps', await resolveDeps(c));
      c.set('clientIp', options.clientIp?.(c));
      const defer = options.defer;
      c.set('defer', defer === undefined ? undefined : (work) => defer(c, work));
      await next();
    }),
  );
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
  for (const fn of FUNCTION_MOUNTS) app.route(fn.prefix, fn.app);
  // The console hands the page's calls back to this same app, with this request's bindings and execution context.
  app.route(
    CONSOLE_PREFIX,
    createConsoleFunction((request, c) => app.fetch(request, c.env, executionContextOf(c))),
  );
  serveOpenApiDocument(app);
  app.notFound((c) => c.json(errorBody(errors.NOT_FOUND('no such route')), 404));
  app.onError(handleError);
  return app;
}

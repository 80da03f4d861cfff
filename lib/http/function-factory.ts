// How a function is built: one OpenAPI app mounted at its own prefix, whose every route gets its guard, no-store,
// validation hook and error answers from the function's options (or its own), so no middleware reaches past the route
// it was meant for and the document names exactly the codes each route can answer.
import { OpenAPIHono, type RouteConfig, type RouteHandler } from '@hono/zod-openapi';
import type { Handler, MiddlewareHandler } from 'hono';
import type { ErrorCode } from './error-catalog.ts';
import type { HonoEnv } from './hono-env.ts';
import { noStore as noStoreMiddleware } from './no-store.ts';
import { errorAnswers } from './route-errors.ts';
import { validationHook } from './validation.ts';

/** The document's security scheme of API keys: a route's requirement names its scope (docs/design/api-keys.md#scopes). */
const API_KEY_SCHEME = 'apiKeyAuth';

/** Tells the guard which scope this route needs of an API key, before it runs. */
function routeScope(scope: string): MiddlewareHandler<HonoEnv> {
  return async (c, next) => {
    c.set('routeScope', scope);
    await next();
  };
}

/** What an authenticated route runs first, and how the OpenAPI document names it. */
export interface Guard {
  middleware: MiddlewareHandler<HonoEnv>;
  /** An HTTP bearer scheme, by its name under the document's components.securitySchemes. */
  securityScheme: { name: string; bearerFormat?: string };
  /** Every code the guard itself answers, added to each route it guards. */
  errors: readonly ErrorCode[];
  /** The guard also takes an API key on routes that declare a scope (the bearer guard). */
  keyed?: boolean;
  /** Headers the guard adds to the route's own answers (the bearer guard's RateLimit fields), for the document. */
  answerHeaders?: Record<string, { description: string; schema: { type: 'string' } }>;
}

/** A route definition: its path is relative to the function's prefix; guard and no-store come from the function. */
export type RouteSpec<G extends string = string> = RouteConfig & {
  /**
   * Every code the handler, and what it calls, can answer. The function adds the ones it knows of: the guard's,
   * VALIDATION_FAILED for a route with input, INTERNAL_ERROR for all.
   */
  errors: readonly ErrorCode[];
  /** This route's guard when it is not the function's (a public route of an authenticated function, or the reverse). */
  auth?: G | 'none';
  /** This route's no-store when it is not the function's. */
  noStore?: boolean;
  /**
   * The API key scope that reaches this route (`members:read`, docs/design/api-keys.md#scopes); absent, no API key
   * does. Listed in the document as the `apiKeyAuth` security requirement and `x-scopes`.
   */
  scope?: string;
  middleware?: never;
  security?: never;
};

export interface FunctionOptions<G extends string> {
  /** Where the function is mounted, in Hono's syntax (`/orgs/:orgId/invites`); its routes' paths are relative to it. */
  prefix: string;
  /** The guard of its routes: a key of the guards, or 'none' for public routes. */
  auth: G | 'none';
  /** Every answer of its routes, errors included, carries `Cache-Control: no-store` (it may carry a credential). */
  noStore?: boolean;
}

export interface RunstateFunction<G extends string> {
  readonly prefix: string;
  /** The routes, mounted by functions/app.ts at `prefix`. */
  readonly app: OpenAPIHono<HonoEnv>;
  openapi<R extends RouteSpec<G>>(route: R, handler: RouteHandler<R, HonoEnv>): void;
  /** A documented route whose handler reads the raw request itself, with no validator (the webhook checks a signature first). */
  unvalidated(route: RouteSpec<G>, handler: Handler<HonoEnv>): void;
}

/**
 * `defineFunction` and `defineRoute` for a set of guards (lib/auth/define-function.ts wires sign-in's and the
 * operators'). defineRoute only type-checks a definition; the function it is registered on adds the rest.
 */
export function functionFactory<G extends string>(guards: Record<G, Guard>) {
  const defineRoute = <R extends RouteSpec<G>>(route: R): R => route;

  function defineFunction(options: FunctionOptions<G>): RunstateFunction<G> {
    const app = new OpenAPIHono<HonoEnv>({ defaultHook: validationHook });
    const registered = new Set<string>();

    /** The route as @hono/zod-openapi takes it: the guard and no-store as its middleware, the guard's security scheme, its error answers. */
    function complete(route: RouteSpec<G>): RouteConfig {
      const { auth = options.auth, noStore = options.noStore ?? false, errors, scope, ...config } = route;
      const guard = auth === 'none' ? undefined : guards[auth];
      if (guard !== undefined && !registered.has(guard.securityScheme.name)) {
        const { name, bearerFormat } = guard.securityScheme;
        app.openAPIRegistry.registerComponent('securitySchemes', name, {
          type: 'http',
          scheme: 'bearer',
          ...(bearerFormat !== undefined ? { bearerFormat } : {}),
        });
        registered.add(name);
      }
      // no-store outermost, so whatever the guard or the handler answers carries it.
      if (scope !== undefined && guard?.keyed !== true)
        throw new Error(`${config.method} ${config.path}: a scope needs a guard that takes API keys`);
      if (scope !== undefined && !registered.has(API_KEY_SCHEME)) {
        app.openAPIRegistry.registerComponent('securitySchemes', API_KEY_SCHEME, {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'rsk_ API key',
        });
        registered.add(API_KEY_SCHEME);
      }
      const middleware = [
        ...(noStore ? [noStoreMiddleware] : []),
        ...(scope !== undefined ? [routeScope(scope)] : []),
        ...(guard !== undefined ? [guard.middleware] : []),
      ];
      const answers = errorAnswers(config, [...errors, ...(guard?.errors ?? [])]);
      for (const status of Object.keys(answers)) {
        if (status in config.responses)
          throw new Error(`${config.method} ${config.path}: ${status} is both an answer of its own and an error's`);
      }
      const own =
        guard?.answerHeaders === undefined
          ? config.responses
          : Object.fromEntries(
              Object.entries(config.responses).map(([status, answer]) => [
                status,
                { ...answer, headers: { ...guard.answerHeaders, ...(answer as { headers?: object }).headers } },
              ]),
            );
      return {
        ...config,
        ...(guard !== undefined
          ? { security: [{ [guard.securityScheme.name]: [] }, ...(scope !== undefined ? [{ [API_KEY_SCHEME]: [scope] }] : [])] }
          : {}),
        ...(scope !== undefined ? { 'x-scopes': [scope] } : {}),
        middleware,
        responses: { ...own, ...answers },
      };
    }

    return {
      prefix: options.prefix,
      app,
      openapi(route, handler) {
        // The handler was checked against the definition; completing it adds middleware, security and error answers only.
        app.openapi(complete(route), handler as unknown as RouteHandler<RouteConfig, HonoEnv>);
      },
      unvalidated(route, handler) {
        const { middleware, ...config } = complete(route);
        app.openAPIRegistry.registerPath(config);
        const path = config.path.replaceAll(/\{([^}]+)\}/g, ':$1');
        app.on([config.method.toUpperCase()], [path], ...(middleware as MiddlewareHandler<HonoEnv>[]), handler);
      },
    };
  }

  return { defineFunction, defineRoute };
}

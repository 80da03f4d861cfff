// Mounts sub-apps on their prefix's first request instead of at start: an isolate or a process then pays, before its
// first answer, only for the functions that request reaches (docs/design/layers.md, "Functions built on first request").
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { GrowingRouter } from './growing-router.ts';
import type { HonoEnv } from './hono-env.ts';
import { prefixMatcher } from './prefix-matcher.ts';

export interface LazyMount {
  /** Where the sub-app is mounted, in Hono's syntax; known without loading it. */
  prefix: string;
  /** Loads the sub-app (a dynamic import, so a bundle evaluates its module only then). */
  load(): Promise<Hono<HonoEnv>>;
}

type Fetch = Hono<HonoEnv>['fetch'];

/**
 * Wraps `app.fetch` so that each request first waits for the sub-apps whose prefix it falls under (and for all of them
 * at `everyMountAt`, the OpenAPI document), which are then mounted with `app.route` as at start, in their place among
 * the others (`router` is the app's). Handlers run in the app's own context, after its middleware, exactly as routes
 * mounted at start, and the OpenAPI registry lists their routes in the same order. Returns the middleware that answers
 * for a sub-app that failed to load: it throws the loading error to the app's error handler, so its place in the chain
 * decides which headers and logs that answer gets.
 */
export function mountOnFirstRequest(
  app: OpenAPIHono<HonoEnv>,
  router: Pick<GrowingRouter<unknown>, 'inGroup'>,
  mounts: readonly LazyMount[],
  everyMountAt: string,
): MiddlewareHandler<HonoEnv> {
  // Which mounts a path needs: those whose prefix it is or falls under, and all of them at `everyMountAt`.
  const under = prefixMatcher(mounts.map((mount) => mount.prefix));
  const every = mounts.map((_, index) => index);
  const needs = (path: string): number[] => (path === everyMountAt ? every : under(path));
  const mounted: Array<Promise<void> | undefined> = mounts.map(() => undefined);
  const loaded: Array<Hono<HonoEnv> | undefined> = mounts.map(() => undefined);
  const failures = new WeakMap<Request, unknown>();

  const mount = (index: number): Promise<void> =>
    (mounted[index] ??= mounts[index]!.load().then(
      (subApp) => {
        router.inGroup(index + 1, () => app.route(mounts[index]!.prefix, subApp));
        loaded[index] = subApp;
        // The document lists them in their order too, whichever was asked for first (the app documents no route of
        // its own): its registry is that of all mounted so far, mounted afresh in order.
        const documented = new OpenAPIHono<HonoEnv>();
        loaded.forEach((sub, at) => sub !== undefined && documented.route(mounts[at]!.prefix, sub));
        app.openAPIRegistry = documented.openAPIRegistry;
      },
      (error: unknown) => {
        // Tried again on the next request (a failed module stays failed, but the answer is an error either way).
        mounted[index] = undefined;
        throw error;
      },
    ));

  const dispatch: Fetch = app.fetch;
  app.fetch = (request, env, executionCtx) => {
    const waiting = needs(app.getPath(request, { env }))
      .filter((index) => loaded[index] === undefined)
      .map(mount);
    if (waiting.length === 0) return dispatch(request, env, executionCtx);
    return Promise.all(waiting).then(
      () => dispatch(request, env, executionCtx),
      (error: unknown) => {
        failures.set(request, error);
        return dispatch(request, env, executionCtx);
      },
    );
  };

  return createMiddleware<HonoEnv>(async (c, next) => {
    if (failures.has(c.req.raw)) throw failures.get(c.req.raw);
    await next();
  });
}

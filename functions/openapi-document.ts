// GET /openapi.json: the contract generated from the routes once per app (an isolate or a process), then served as text.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { HonoEnv } from '../lib/http/hono-env.ts';

export const OPENAPI_PATH = '/openapi.json';

/** The document's head: the rest comes from the routes' own schemas. */
export const OPENAPI_OBJECT = { openapi: '3.1.0', info: { title: 'runstate', version: '0.1.0' } } as const;

/**
 * Serves the OpenAPI 3.1 document. Generating it walks every route's schemas (tens of milliseconds of CPU, more on the
 * first call); a request for it first mounts every function not mounted yet (functions/app.ts), and mounting changes
 * nothing of a route already there, so the first request generates it and every later one gets the same text. Otherwise as @hono/zod-openapi's `doc31`: JSON, and a 500 with
 * the error when generation fails (not kept, so the next request tries again).
 */
export function serveOpenApiDocument(app: OpenAPIHono<HonoEnv>): void {
  let document: string | undefined;
  app.get(OPENAPI_PATH, (c) => {
    try {
      document ??= JSON.stringify(app.getOpenAPI31Document(OPENAPI_OBJECT));
    } catch (error) {
      return c.json(error, 500);
    }
    return c.body(document, 200, { 'content-type': 'application/json' });
  });
}

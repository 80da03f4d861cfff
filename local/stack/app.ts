// The real app over a local stack: config from one environment, one Deps, the composed functions, and a request helper.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from '../../functions/app.ts';
import { routeStoreFetch } from '../../functions/entries/node.ts';
import { loadConfig, type Config } from '../../lib/config/index.ts';
import { createDeps, type DepsOverrides } from '../../lib/create-deps.ts';
import type { Deps } from '../../lib/deps.ts';
import type { HonoEnv } from '../../lib/http/hono-env.ts';

/** Read by the composed app (tests, bench) as the caller's address; deployed entries never look at it. */
export const TEST_CLIENT_IP_HEADER = 'x-runstate-test-client-ip';

export interface ComposedApp {
  config: Config;
  deps: Deps;
  app: OpenAPIHono<HonoEnv>;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Serialised as JSON (content-type application/json unless given). */
  body?: unknown;
  /** Sent as is, for malformed-input tests. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** Validates `env` as a deployment would (loadConfig throws naming bad variables) and builds the app on one Deps. */
export function composeApp(env: Record<string, string | undefined>, overrides: DepsOverrides = {}): ComposedApp {
  const config = loadConfig(env);
  // As the Node entry does: the stores' calls over node:http, not fetch.
  routeStoreFetch(config);
  const deps = createDeps(config, overrides);
  // app.request has no socket: tests name the caller's address in a header only this local composition reads.
  const app = createApp(() => deps, { clientIp: (c) => c.req.header(TEST_CLIENT_IP_HEADER), defer: (_c, work) => void work });

  async function request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    return app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
  }

  return { config, deps, app, request };
}

// The real app over a local stack: config from one environment, one Deps, the composed functions, and a request helper.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from '../../functions/app.ts';
import { loadConfig, type Config } from '../../lib/config/index.ts';
import { createDeps, type DepsOverrides } from '../../lib/create-deps.ts';
import type { Deps } from '../../lib/deps.ts';
import type { HonoEnv } from '../../lib/http/hono-env.ts';

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
  const deps = createDeps(config, overrides);
  const app = createApp(() => deps);

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

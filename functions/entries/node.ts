// Node entry: serves the composed app over HTTP with one set of dependencies for the process.
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from '../app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import type { Config } from '../../lib/config/index.ts';
import type { Logger } from '../../lib/log/logger.ts';

export function serveNode(config: Config, options: { hostname?: string; logger?: Logger } = {}): Promise<ServerType> {
  const deps = createDeps(config, options.logger !== undefined ? { logger: options.logger } : {});
  const app = createApp(() => deps);
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: config.port, hostname: options.hostname ?? '127.0.0.1' }, () => resolve(server));
  });
}

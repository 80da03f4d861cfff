// The Neon driver's WebSocket Pool, for the few operations that need an interactive transaction.
import { Client, Pool } from '@neondatabase/serverless';
import type { ClientConfig, WebSocketConstructor } from '@neondatabase/serverless';
import type { PgConnectionConfig } from './db.ts';
import { useLocalProxySocket } from './local-proxy.ts';

export interface CreatePoolOptions {
  /** A WebSocket class (e.g. `ws`) where there is no global WebSocket (Node 20); workerd needs none. */
  webSocketConstructor?: unknown;
}

// For work that decides inside one transaction (a compensation reads the invite's outcome and decides inside one transaction); today only the
// Neon-proxy and migration tests open one.
/**
 * Returns a driver Pool (node-postgres API: `connect()`, `query()`, `end()`).
 *
 * On Cloudflare Workers a Pool must be created and ended inside one request —
 * `ctx.waitUntil(pool.end())` — because a WebSocket cannot outlive the request that opened it;
 * a module-scope pool hangs on the second request. Prefer `createDb` (HTTP, one round trip) unless
 * the work needs BEGIN … SELECT … FOR UPDATE … COMMIT with decisions in between.
 *
 * Settings are applied per client, never to the global neonConfig, so pools pointing at different
 * proxies can live in one process.
 */
export function createPool(config: PgConnectionConfig, options: CreatePoolOptions = {}): Pool {
  const { neonLocalProxyUrl } = config;
  const webSocketConstructor = options.webSocketConstructor as WebSocketConstructor | undefined;
  class ConfiguredClient extends Client {
    constructor(clientConfig?: string | ClientConfig) {
      super(clientConfig);
      const socket = this.neonConfig;
      if (webSocketConstructor !== undefined) socket.webSocketConstructor = webSocketConstructor;
      if (neonLocalProxyUrl !== undefined) useLocalProxySocket(socket, neonLocalProxyUrl);
    }
  }
  const pool = new Pool({ connectionString: config.databaseUrl });
  // The driver's Pool pins its own Client after construction, so the subclass is set afterwards.
  pool.Client = ConfiguredClient;
  return pool;
}

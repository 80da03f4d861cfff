// The local Neon proxy: one HTTP server giving the unmodified Neon driver both its transports to a plain Postgres.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFaultState, createStats, sleep, type NeonProxyFaults, type NeonProxyStats } from './faults.ts';
import { createSqlEndpoint } from './sql-over-http.ts';
import { postgresTargetOf } from './target.ts';
import { createWsTunnel } from './ws-tunnel.ts';

import { isLoopbackHost } from './loopback.ts';

export { isLoopbackHost };
export type { NeonProxyFaults, NeonProxyStats, StatementFault } from './faults.ts';

export interface NeonProxy {
  /** http://127.0.0.1:<port>; give it to lib/pg as `neonLocalProxyUrl`. */
  url: string;
  port: number;
  faults: NeonProxyFaults;
  stats: NeonProxyStats;
  /** Stops listening, cuts tunnels and connections, ends the Postgres pools. */
  close(): Promise<void>;
}

/**
 * Starts the proxy for the one PostgreSQL named by `databaseUrl` (on this machine; only its host and port are kept).
 * `POST /sql` speaks Neon's SQL-over-HTTP contract (the `neon()` / `transaction()` path) as the user and database
 * named in `Neon-Connection-String`; `/v1?address=host:port` upgrades to a WebSocket piped to that Postgres over
 * TCP (the `Pool` / `Client` path). Any other host or port, and any request from a browser, is refused before a
 * connection is tried. Port 0 (the default) picks a free one.
 */
export async function startNeonProxy(options: { databaseUrl: string; port?: number; host?: string }): Promise<NeonProxy> {
  const target = postgresTargetOf(options.databaseUrl);
  const stats = createStats();
  const faults = createFaultState(stats);
  const sql = createSqlEndpoint(target, faults, stats);
  const tunnel = createWsTunnel(target);

  const server = createServer((req, res) => {
    stats.httpRequests += 1;
    if (faults.refuse) {
      req.socket.destroy();
      return;
    }
    const path = new URL(req.url ?? '/', 'http://proxy.invalid').pathname;
    if (req.method !== 'POST' || path !== '/sql') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
      return;
    }
    void sleep(faults.delayMs).then(() => sql.handle(req, res));
  });

  server.on('upgrade', (req, socket, head: Buffer) => {
    stats.wsConnections += 1;
    if (faults.refuse) {
      socket.destroy();
      return;
    }
    void sleep(faults.delayMs).then(() => tunnel.handleUpgrade(req, socket, head));
  });

  const host = options.host ?? '127.0.0.1';
  // A dev tool next to a browser: it never listens where another machine could reach it.
  if (!isLoopbackHost(host)) throw new Error(`the Neon proxy listens on loopback addresses only, not ${host}`);
  await listen(server, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    faults,
    stats,
    async close() {
      // Held requests are let go first, so nothing waits on a fault after the server is gone.
      faults.clear();
      tunnel.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, sql.close()]);
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

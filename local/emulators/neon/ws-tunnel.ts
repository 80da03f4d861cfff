// Pipes each WebSocket on /v1?address=host:port to a TCP connection to the configured Postgres, and to nothing else.
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { parseAddress } from './loopback.ts';
import { isTarget, type PostgresTarget } from './target.ts';

export interface WsTunnel {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Cuts every open tunnel. */
  close(): void;
}

export function createWsTunnel(target: PostgresTarget): WsTunnel {
  const server = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const upstreams = new Set<Socket>();

  return {
    handleUpgrade(req, socket, head) {
      socket.on('error', () => socket.destroy());
      // Browsers always send Origin and the driver on Node never does: a page cannot open a tunnel, whatever its site.
      if (req.headers.origin !== undefined) {
        refuseUpgrade(socket, 403, 'Forbidden');
        return;
      }
      const url = new URL(req.url ?? '/', 'http://proxy.invalid');
      const requested = parseAddress(url.searchParams.get('address') ?? '');
      if (url.pathname !== '/v1' || requested === undefined) {
        refuseUpgrade(socket, 400, 'Bad Request');
        return;
      }
      if (!isTarget(target, requested.host, requested.port)) {
        refuseUpgrade(socket, 403, 'Forbidden');
        return;
      }
      // Connect to Postgres first, so an unreachable database is a refused upgrade, not a dead tunnel.
      const upstream = connect({ host: target.host, port: target.port });
      upstreams.add(upstream);
      upstream.once('close', () => upstreams.delete(upstream));
      upstream.once('error', () => refuseUpgrade(socket, 502, 'Bad Gateway'));
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        upstream.setNoDelay(true);
        server.handleUpgrade(req, socket, head, (ws) => pipe(ws, upstream));
      });
    },
    close() {
      for (const ws of server.clients) ws.terminate();
      for (const upstream of upstreams) upstream.destroy();
      server.close();
    },
  };
}

function pipe(ws: WebSocket, upstream: Socket): void {
  ws.on('message', (data: RawData) => {
    upstream.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data));
  });
  upstream.on('data', (chunk: Buffer) => ws.send(chunk));
  ws.on('close', () => upstream.end());
  ws.on('error', () => upstream.destroy());
  upstream.on('close', () => ws.close());
  upstream.on('error', () => ws.terminate());
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
}

// Node entry: serves the composed app over HTTP with one set of dependencies for the process.
import type { Duplex } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createApp } from '../app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import type { Config } from '../../lib/config/index.ts';
import { errorBody, errors } from '../../lib/http/app-error.ts';
import { SECURITY_HEADERS } from '../../lib/http/security-headers.ts';
import type { Logger } from '../../lib/log/logger.ts';
import type { Notifier } from '../../lib/notify/notifier.ts';
import { nodeResolveHost } from './node-resolve-host.ts';
import { routeStoreFetch } from './store-fetch.ts';

// The local stack composes the app itself and routes its stores the same way (local/ imports only this entry).
export { routeStoreFetch };

const REQUEST_RECEIVE_TIMEOUT_MS = 10_000;

export function serveNode(config: Config, options: { hostname?: string; logger?: Logger; notifier?: Notifier } = {}): Promise<ServerType> {
  routeStoreFetch(config);
  const deps = createDeps(config, {
    resolveHost: nodeResolveHost,
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.notifier !== undefined ? { notifier: options.notifier } : {}),
  });
  // The socket's peer: the Node server is reached directly (npm start), never behind a proxy that would rewrite it.
  // A Node process outlives the response, so deferred work just runs on.
  const app = createApp(() => deps, { clientIp: (c) => getConnInfo(c).remote.address, defer: (_c, work) => void work });
  return new Promise((resolve) => {
    const server = serve(
      {
        fetch: app.fetch,
        port: config.port,
        hostname: options.hostname ?? '127.0.0.1',
        // A request (headers and its ≤ 16 KiB body) must arrive within 10 s: a client that announces a body and never
        // sends it gets 408 then, not a connection held for Node's default 5 minutes. Answers may take longer.
        serverOptions: {
          requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
          headersTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
          connectionsCheckingInterval: 1_000,
        },
      },
      () => resolve(server),
    );
    server.on('clientError', answerClientError);
  });
}

// Node's own answer to a request its parser refuses is a bare status with no body; this one carries the error body of
// docs/api.md instead (the status Node would pick, a fixed message: the parser's error may quote the request).
function answerClientError(error: Error & { code?: string }, socket: Duplex & { _httpMessage?: { headersSent?: boolean } }): void {
  // A response already under way on this connection cannot be followed by another one (Node's own rule).
  if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent === true) {
    socket.destroy();
    return;
  }
  const answer =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? errors.HEADERS_TOO_LARGE()
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errors.REQUEST_TIMEOUT()
        : errors.VALIDATION_FAILED('the request is not valid HTTP');
  const { status } = answer;
  const body = JSON.stringify(errorBody(answer));
  const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  // The app's security headers too: this answer never passes through it (functions/app.ts).
  const security = Object.entries(SECURITY_HEADERS)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${security}connection: close\r\n\r\n${body}`,
  );
}

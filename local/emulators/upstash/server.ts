// The HTTP side of the proxy: routing, auth, body limits and status codes for `/`, `/pipeline` and `/multi-exec`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { parseCommand, parseCommandList, type RedisCommand } from './args.ts';
import { createBearerCheck, WRONGPASS_ERROR } from './auth.ts';
import { runPipeline, runTransaction, type ExecutionContext, type Outcome } from './execute.ts';
import type { Failover } from './failover.ts';
import { RedisUnavailableError } from './redis-connection.ts';
import { placeRequest } from './replica/place-request.ts';
import { parseSyncToken, SYNC_TOKEN_HEADER } from './replica/sync-token.ts';
import { noteSlotError, type ProxyStats } from './stats.ts';

// Upstash's own request size limit.
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface ProxyServerOptions {
  token: string;
  context: ExecutionContext;
  stats: ProxyStats;
  /** Requests wait for a promotion under way (failover.ts), so none is sent to the old primary after it. */
  failover: Pick<Failover, 'settled'>;
}

export interface ProxyServer {
  server: Server;
  /** Destroys every open client socket (keep-alive ones included). */
  dropConnections(): void;
}

type Route = 'single' | 'pipeline' | 'multi-exec';

export function createProxyServer(options: ProxyServerOptions): ProxyServer {
  const { context, stats } = options;
  const isAuthorized = createBearerCheck(options.token);
  const sockets = new Set<Socket>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    stats.requests += 1;
    if (!isAuthorized(request.headers.authorization)) return send(response, 401, { error: WRONGPASS_ERROR });
    if (request.method !== 'POST') return send(response, 405, { error: 'ERR only POST is supported' });
    const route = routeOf(request.url ?? '/');
    if (route === undefined) return send(response, 404, { error: 'ERR unknown endpoint; use POST /, /pipeline or /multi-exec' });
    const body = await readJson(request);
    if (!body.ok) return send(response, body.status, { error: body.error });
    // A slow Redis, not a slow network: the request has arrived whole and runs after the delay even if the
    // client gave up meanwhile, which is what makes a missed deadline an unknown outcome.
    if (context.faults.delayMs > 0) await sleep(context.faults.delayMs);
    const base64 = String(request.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    const token = parseSyncToken(request.headers[SYNC_TOKEN_HEADER]);
    await options.failover.settled();

    if (route === 'single') {
      const parsed = parseCommand(body.value);
      if (!parsed.ok) return send(response, 400, { error: parsed.error });
      stats.commands += 1;
      const placed = await placeRequest(context, stats, [parsed.value], token, false);
      const [outcome] = await runPipeline(placed.context, [parsed.value], base64);
      noteSlotErrors(stats, [parsed.value], outcome === undefined ? [] : [outcome]);
      // A null reply must still carry `result`, or the client throws.
      const status = outcome !== undefined && 'result' in outcome ? 200 : 400;
      return send(response, status, outcome ?? { error: 'ERR no reply' }, await placed.syncToken());
    }
    const parsed = parseCommandList(body.value);
    if (!parsed.ok) return send(response, 400, { error: parsed.error });
    stats.commands += parsed.value.length;
    const placed = await placeRequest(context, stats, parsed.value, token, route === 'multi-exec');
    if (route === 'pipeline') {
      const outcomes = await runPipeline(placed.context, parsed.value, base64);
      noteSlotErrors(stats, parsed.value, outcomes);
      return send(response, 200, outcomes, await placed.syncToken());
    }
    const transaction = await runTransaction(placed.context, parsed.value, base64);
    if (transaction.ok) noteSlotErrors(stats, parsed.value, transaction.outcomes);
    else noteSlotError(stats, 'multi', transaction.error);
    const syncToken = await placed.syncToken();
    return transaction.ok
      ? send(response, 200, transaction.outcomes, syncToken)
      : send(response, 400, { error: transaction.error }, syncToken);
  }

  const server = createServer((request, response) => {
    if (context.faults.refuse) {
      request.socket.destroy();
      return;
    }
    handle(request, response).catch((error: unknown) => {
      if (error instanceof RedisUnavailableError) return send(response, 503, { error: error.message });
      console.error('redis-rest-proxy: unexpected error', error);
      send(response, 500, { error: 'ERR internal proxy error' });
    });
  });
  server.on('connection', (socket: Socket) => {
    if (context.faults.refuse) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  return {
    server,
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
  };
}

function noteSlotErrors(stats: ProxyStats, commands: RedisCommand[], outcomes: Outcome[]): void {
  outcomes.forEach((outcome, index) => {
    if ('error' in outcome) noteSlotError(stats, commands[index]?.name ?? '?', outcome.error);
  });
}

function routeOf(url: string): Route | undefined {
  const path = new URL(url, 'http://proxy').pathname.replace(/\/+$/, '');
  if (path === '') return 'single';
  if (path === '/pipeline') return 'pipeline';
  if (path === '/multi-exec') return 'multi-exec';
  return undefined;
}

type BodyResult = { ok: true; value: unknown } | { ok: false; status: number; error: string };

async function readJson(request: IncomingMessage): Promise<BodyResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      // Keep draining past the limit so the answer reaches the client, but stop holding the bytes.
      if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
    }
  } catch {
    return { ok: false, status: 400, error: 'ERR the request body was cut off' };
  }
  if (size > MAX_BODY_BYTES) return { ok: false, status: 413, error: 'ERR max request size exceeded (10 MB)' };
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { ok: false, status: 400, error: 'ERR the request body is not valid JSON' };
  }
}

function send(response: ServerResponse, status: number, body: unknown, syncToken?: string): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, {
    'content-type': 'application/json',
    ...(syncToken === undefined ? {} : { [SYNC_TOKEN_HEADER]: syncToken }),
  });
  response.end(JSON.stringify(body));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

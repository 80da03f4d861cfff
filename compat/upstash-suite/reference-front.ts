// A deliberately plain Upstash REST front (one fresh Redis connection per request, every command forwarded verbatim), the yardstick our proxy is held to.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openRespConnection, RespError, type RespConnection, type RespReply } from './resp-connection.ts';

export interface ReferenceFront {
  url: string;
  token: string;
  close(): Promise<void>;
}

type Json = string | number | null | Json[];
type Outcome = { result: Json } | { error: string };

/**
 * POST / (one command), /pipeline and /multi-exec with bearer auth, `{"result"}` / `{"error"}` bodies and base64 of
 * every string at every depth under `Upstash-Encoding: base64`. Nothing is refused or rewritten; a connection of its
 * own per request means blocking or state-changing commands only ever affect the request that sent them.
 */
export async function startReferenceFront(options: { redisUrl: string; token: string; port?: number }): Promise<ReferenceFront> {
  const { redisUrl, token } = options;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.headers.authorization !== `Bearer ${token}`) return reply(response, 401, { error: 'Unauthorized' });
    const path = new URL(request.url ?? '/', 'http://front').pathname.replace(/\/+$/, '');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(response, 400, { error: 'ERR invalid JSON body' });
    }
    const base64 = String(request.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';

    if (path === '') {
      const command = toCommand(body);
      if (command === undefined) return reply(response, 400, { error: 'ERR invalid command' });
      const [outcome] = await onFreshConnection((connection) => runEach(connection, [command], base64));
      return reply(response, outcome !== undefined && 'result' in outcome ? 200 : 400, outcome);
    }
    if (path !== '/pipeline' && path !== '/multi-exec') return reply(response, 404, { error: 'ERR not found' });
    const commands = Array.isArray(body) ? body.map(toCommand) : [];
    if (commands.length === 0 || commands.some((command) => command === undefined)) {
      return reply(response, 400, { error: 'ERR invalid command list' });
    }
    const valid = commands as string[][];
    if (path === '/pipeline') return reply(response, 200, await onFreshConnection((connection) => runEach(connection, valid, base64)));
    const transaction = await onFreshConnection((connection) => runTransaction(connection, valid, base64));
    return 'error' in transaction ? reply(response, 400, transaction) : reply(response, 200, transaction.outcomes);
  }

  async function onFreshConnection<T>(work: (connection: RespConnection) => Promise<T>): Promise<T> {
    const connection = await openRespConnection(redisUrl);
    try {
      return await work(connection);
    } finally {
      connection.close();
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => reply(response, 500, { error: `ERR ${(error as Error).message}` }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Strings as they are, numbers by String(n), booleans as text; anything else makes the command invalid. */
function toCommand(raw: unknown): string[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const args: string[] = [];
  for (const item of raw) {
    if (typeof item === 'string') args.push(item);
    else if (typeof item === 'number' || typeof item === 'boolean') args.push(String(item));
    else return undefined;
  }
  return args;
}

async function runEach(connection: RespConnection, commands: string[][], base64: boolean): Promise<Outcome[]> {
  const replies = await Promise.all(commands.map((command) => connection.send(command)));
  return replies.map((item) => outcomeOf(item, base64));
}

async function runTransaction(
  connection: RespConnection,
  commands: string[][],
  base64: boolean,
): Promise<{ outcomes: Outcome[] } | { error: string }> {
  const replies = await Promise.all([['multi'], ...commands, ['exec']].map((command) => connection.send(command)));
  const exec = replies[replies.length - 1];
  const firstError = replies.find((item) => item instanceof RespError);
  if (!Array.isArray(exec)) {
    return { error: firstError instanceof RespError ? firstError.message : 'EXECABORT Transaction discarded' };
  }
  return { outcomes: exec.map((item) => outcomeOf(item, base64)) };
}

function outcomeOf(item: RespReply, base64: boolean): Outcome {
  return item instanceof RespError ? { error: item.message } : { result: toJson(item, base64) };
}

function toJson(item: RespReply, base64: boolean): Json {
  if (item === null || typeof item === 'number') return item;
  if (Array.isArray(item)) return item.map((inner) => toJson(inner, base64));
  // An error nested below the top level has no slot of its own; its text stands in, never encoded.
  if (item instanceof RespError) return item.message;
  return base64 ? item.toString('base64') : item.toString('utf8');
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

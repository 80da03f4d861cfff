// An Upstash REST front that sends every request to two REST proxies (a real Redis, the embedded engine) and records
// where their answers differ, naming the command (and for EVAL/EVALSHA the script); the app gets the first one's answer.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import type { LuaScript } from '../../lib/redis/index.ts';

export interface RestTarget {
  url: string;
  token: string;
}

export interface Disagreement {
  /** e.g. `EVALSHA invites.create` or `pipeline[2] GET`. */
  command: string;
  path: string;
  real: Answer;
  embedded: Answer;
}

interface Answer {
  status: number;
  /** The body as sent, with base64 values decoded back to text, so a report reads as the commands did. */
  body: unknown;
}

export interface DifferentialFront {
  url: string;
  token: string;
  /** Every disagreement since the last `take()`. */
  take(): Disagreement[];
  /** Requests answered so far (each went to both sides). */
  readonly requests: number;
  /** How often each command was sent (scripts by name, e.g. `EVALSHA invites.create`), pipelines item by item. */
  readonly commands: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

export async function startDifferentialFront(
  real: RestTarget,
  embedded: RestTarget,
  scripts: readonly LuaScript[],
): Promise<DifferentialFront> {
  const token = randomBytes(24).toString('base64url');
  const scriptNames = new Map(scripts.map((script) => [createHash('sha1').update(script.source).digest('hex'), script.name]));
  let disagreements: Disagreement[] = [];
  let requests = 0;
  const commands = new Map<string, number>();
  // One request at a time, to both sides in the same order: concurrent callers meet the same interleaving on each.
  let queue: Promise<unknown> = Promise.resolve();
  const sockets = new Set<Socket>();

  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      if (request.headers.authorization !== `Bearer ${token}`) {
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"WRONGPASS"}');
        return;
      }
      const path = request.url ?? '/';
      const headers = forwardedHeaders(request);
      const turn = queue.then(async () => {
        const first = await forward(real, path, headers, body);
        const second = await forward(embedded, path, headers, body);
        requests += 1;
        for (const command of commandNames(body, scriptNames)) commands.set(command, (commands.get(command) ?? 0) + 1);
        disagreements.push(...compare(path, body, first, second, scriptNames));
        return first;
      });
      queue = turn.catch(() => undefined);
      const answer = await turn;
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `ERR front: ${String(error)}` }));
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    take() {
      const taken = disagreements;
      disagreements = [];
      return taken;
    },
    get requests() {
      return requests;
    },
    commands,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface RawAnswer {
  status: number;
  text: string;
  base64: boolean;
}

async function forward(target: RestTarget, path: string, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  const response = await fetch(`${target.url}${path}`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${target.token}` },
    body,
  });
  return { status: response.status, text: await response.text(), base64: headers['upstash-encoding'] === 'base64' };
}

function forwardedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const encoding = request.headers['upstash-encoding'];
  if (typeof encoding === 'string') headers['upstash-encoding'] = encoding.toLowerCase();
  return headers;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The disagreements of one request: the whole answer for a single command, item by item for a pipeline or transaction. */
function compare(path: string, body: string, real: RawAnswer, embedded: RawAnswer, scriptNames: Map<string, string>): Disagreement[] {
  const a = decode(real);
  const commands = parseCommands(body);
  const single = !Array.isArray(commands[0]);
  const b = withTtlsWithinASecond(a, decode(embedded), single ? [commands] : commands, scriptNames);
  if (a.status === b.status && isDeepStrictEqual(a.body, b.body)) return [];
  if (single || a.status !== b.status || !Array.isArray(a.body) || !Array.isArray(b.body) || a.body.length !== b.body.length) {
    return [{ command: name(single ? commands : commands[0], scriptNames, single ? '' : 'request '), path, real: a, embedded: b }];
  }
  const route = path.replace(/^\/+/, '') || 'single';
  const realItems = a.body as unknown[];
  const embeddedItems = b.body as unknown[];
  return realItems.flatMap((item, index) =>
    isDeepStrictEqual(item, embeddedItems[index])
      ? []
      : [
          {
            command: name(commands[index], scriptNames, `${route}[${index}] `),
            path,
            real: { status: a.status, body: item },
            embedded: { status: b.status, body: embeddedItems[index] },
          },
        ],
  );
}

/**
 * Scripts whose reply carries a TTL: (item index, unit). The two sides are asked one after the other, so a TTL read
 * back can differ by the time between the requests; "the same TTL" means within a second, as the keyspace comparison has it.
 */
const REPLY_TTLS: Record<string, ReadonlyArray<readonly [number, 's' | 'ms']>> = {
  'throttle.hit': [[1, 's']],
  'throttle.sign-in-hit': [[1, 's']],
  // Their second item is a TTL only when they refuse ({'limited', seconds}); a value otherwise, left alone.
  'oidc.consume-bound-state': [[1, 's']],
  'handoff.consume-counted': [[1, 's']],
  'tenants.resolve': [[1, 's']],
  'syrve.read-runtime-state': [
    [1, 'ms'],
    [2, 'ms'],
    [4, 'ms'],
  ],
};

/** The embedded answer with each script TTL that is within a second of the real one replaced by the real one. */
function withTtlsWithinASecond(real: Answer, embedded: Answer, commands: unknown[], scriptNames: Map<string, string>): Answer {
  const single = commands.length === 1 && !Array.isArray(real.body);
  const realItems = single ? [real.body] : real.body;
  const embeddedItems = single ? [embedded.body] : embedded.body;
  if (!Array.isArray(realItems) || !Array.isArray(embeddedItems)) return embedded;
  const adjusted = embeddedItems.map((item: unknown, index) => {
    const script = name(commands[index], scriptNames, '').replace(/^EVAL(SHA)?(_RO)? /, '');
    const ttls = REPLY_TTLS[script];
    const realResult = (realItems[index] as { result?: unknown } | undefined)?.result;
    const result = (item as { result?: unknown } | undefined)?.result;
    if (ttls === undefined || !Array.isArray(realResult) || !Array.isArray(result)) return item;
    const near = [...result];
    for (const [at, unit] of ttls) {
      const gap = Math.abs(Number(near[at]) - Number(realResult[at]));
      if (typeof near[at] === 'number' && typeof realResult[at] === 'number' && gap <= (unit === 's' ? 1 : 1_000))
        near[at] = realResult[at];
    }
    return { ...(item as object), result: near };
  });
  return { status: embedded.status, body: single ? adjusted[0] : adjusted };
}

function commandNames(body: string, scriptNames: Map<string, string>): string[] {
  const commands = parseCommands(body);
  return Array.isArray(commands[0]) ? commands.map((command) => name(command, scriptNames, '')) : [name(commands, scriptNames, '')];
}

function parseCommands(body: string): unknown[] {
  try {
    const parsed = JSON.parse(body) as unknown;
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** `EVALSHA invites.create`, `GET`, …: the script by its SHA or source when it is one of ours. */
function name(command: unknown, scriptNames: Map<string, string>, prefix: string): string {
  if (!Array.isArray(command) || command.length === 0) return `${prefix}(unparsable request)`;
  const verb = String(command[0]).toUpperCase();
  const argument = String(command[1] ?? '');
  if (verb === 'EVALSHA' || verb === 'EVALSHA_RO') return `${prefix}${verb} ${scriptNames.get(argument.toLowerCase()) ?? argument}`;
  if (verb === 'EVAL' || verb === 'EVAL_RO') {
    const sha = createHash('sha1').update(argument).digest('hex');
    return `${prefix}${verb} ${scriptNames.get(sha) ?? `script ${sha}`}`;
  }
  return `${prefix}${verb}`;
}

/** The answer's JSON with every `result` decoded from base64 when the request asked for that encoding. */
function decode(answer: RawAnswer): Answer {
  let body: unknown;
  try {
    body = JSON.parse(answer.text) as unknown;
  } catch {
    return { status: answer.status, body: answer.text };
  }
  return { status: answer.status, body: answer.base64 ? unbase64(body) : body };
}

function unbase64(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unbase64);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([key, inner]) => [
      key,
      key === 'result' ? deepText(inner) : inner,
    ]);
    return Object.fromEntries(entries);
  }
  return value;
}

function deepText(value: unknown): unknown {
  if (typeof value === 'string') return Buffer.from(value, 'base64').toString('utf8');
  if (Array.isArray(value)) return value.map(deepText);
  return value;
}

// A fake DNS-over-HTTPS resolver on loopback for npm start and the tests: `GET /dns-query?name=…&type=TXT` answered in
// the JSON form Cloudflare serves, from an in-memory table, an optional JSON file and an optional callback; with faults
// (late, down, a bad status or body, SERVFAIL) and a log of what it was asked. It never asks a real resolver.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeDohOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** `{ "<name>": ["<text>", …] }`, read at every query so a developer can edit it while the stack runs. */
  recordsFile?: string;
  /** More answers per name, asked at every query (npm start's auto-verify reads the pending claims with it). */
  answer?: (name: string) => Promise<string[]>;
}

export interface FakeDohFaults {
  /** Hold every answer this long. */
  delayMs?: number;
  /** Answer this HTTP status with an empty body. */
  status?: number;
  /** Answer 200 with this body instead of a DNS answer. */
  body?: string;
  /** Answer DNS status 2 (SERVFAIL). */
  servfail?: boolean;
  /** Cut every connection without an answer. */
  refuse?: boolean;
}

export interface FakeDohQuery {
  /** The request's path and query string, exactly as received. */
  url: string;
  name: string | null;
  type: string | null;
  accept: string | undefined;
}

export interface FakeDoh {
  /** `http://127.0.0.1:<port>/dns-query`, for DOMAIN_VERIFY_DOH_URL. */
  url: string;
  /** Name (lowercase, no trailing dot) → TXT texts. */
  records: Map<string, string[]>;
  faults: { set(faults: FakeDohFaults): void; clear(): void };
  /** Every query received, in order. */
  queries: FakeDohQuery[];
  close(): Promise<void>;
}

const TXT = 16;

/** The presentation form Cloudflare answers with: a quoted string, `"` and `\` escaped. */
function quoted(text: string): string {
  return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function fileRecords(path: string | undefined, name: string): string[] {
  if (path === undefined) return [];
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    const texts = (parsed as Record<string, unknown> | null)?.[name];
    return Array.isArray(texts) ? texts.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    // No file, or one being edited: no records from it.
    return [];
  }
}

export async function startFakeDoh(options: FakeDohOptions = {}): Promise<FakeDoh> {
  const records = new Map<string, string[]>();
  const queries: FakeDohQuery[] = [];
  let faults: FakeDohFaults = {};
  const sockets = new Set<Socket>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake-doh');
    const name = url.searchParams.get('name');
    const type = url.searchParams.get('type');
    queries.push({ url: request.url ?? '', name, type, accept: request.headers.accept });
    const current = faults;
    if (current.refuse === true) {
      request.socket.destroy();
      return;
    }
    if (current.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, current.delayMs));
    if (current.status !== undefined) {
      response.writeHead(current.status).end();
      return;
    }
    if (current.body !== undefined) {
      response.writeHead(200, { 'content-type': 'application/dns-json' }).end(current.body);
      return;
    }
    if (request.method !== 'GET' || url.pathname !== '/dns-query' || name === null || (type !== 'TXT' && type !== '16')) {
      response.writeHead(400).end();
      return;
    }
    const key = name.toLowerCase().replace(/\.$/, '');
    const texts = [...(records.get(key) ?? []), ...fileRecords(options.recordsFile, key), ...((await options.answer?.(key)) ?? [])];
    const answer = {
      Status: current.servfail === true ? 2 : texts.length === 0 ? 3 : 0,
      TC: false,
      RD: true,
      RA: true,
      AD: false,
      CD: false,
      Question: [{ name: `${key}.`, type: TXT }],
      ...(current.servfail === true || texts.length === 0
        ? {}
        : { Answer: texts.map((text) => ({ name: `${key}.`, type: TXT, TTL: 60, data: quoted(text) })) }),
    };
    response.writeHead(200, { 'content-type': 'application/dns-json' }).end(JSON.stringify(answer));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Loopback only: nothing off this machine can ask it, or be told anything by it.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/dns-query`,
    records,
    queries,
    faults: {
      set: (next) => {
        faults = { ...faults, ...next };
      },
      clear: () => {
        faults = {};
      },
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

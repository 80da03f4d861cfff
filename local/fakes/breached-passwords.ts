// A fake of Have I Been Pwned's range API on loopback for npm start and the tests: `GET /range/{5 hex}` answered from a
// short list of known breached passwords, padded with count-0 lines when asked `Add-Padding: true`, with faults (late,
// hung, a status, a body, lowercase suffixes) and a log of what it was asked. It never asks the real API.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A few passwords every breach corpus holds (each at least 12 characters, so the routes' length rule lets it through
 * to the check), with made-up counts. Public knowledge, not secrets: npm start prints the first one to try.
 */
export const KNOWN_BREACHED_PASSWORDS: Readonly<Record<string, number>> = {
  password1234: 1_286_402,
  qwerty123456: 412_337,
  '123456789012': 95_316,
  correcthorsebatterystaple: 390,
};

/** How many count-0 lines a padded answer carries: the real API pads to 800–1 000 lines; a few show the rule. */
const PADDING_LINES = 8;

export interface FakeBreachedPasswordsOptions {
  /** password → count; default KNOWN_BREACHED_PASSWORDS. */
  passwords?: Readonly<Record<string, number>>;
  /** 0 (the default) picks a free port. */
  port?: number;
}

export interface FakeBreachedPasswordsFaults {
  /** Hold every answer this long. */
  delayMs?: number;
  /** Never answer (until the faults are cleared for later requests, or the fake closes). */
  hang?: boolean;
  /** Answer this HTTP status with an empty body. */
  status?: number;
  /** Answer 200 with this body instead of the range. */
  body?: string;
  /** Write the suffixes in lowercase, as a mirror might. */
  lowercase?: boolean;
}

export interface FakeRangeRequest {
  /** The path and query string exactly as received. */
  url: string;
  /** The `Add-Padding` header as received. */
  addPadding: string | undefined;
  /** Every header as received, for tests that look for what must not travel. */
  headers: string;
}

export interface FakeBreachedPasswords {
  /** `http://127.0.0.1:<port>/range/`, for PASSWORD_BREACH_API_URL. */
  url: string;
  faults: { set(faults: FakeBreachedPasswordsFaults): void; clear(): void };
  /** Every request received, in order. */
  requests: FakeRangeRequest[];
  close(): Promise<void>;
}

const RANGE_PATH = /^\/range\/([0-9A-Fa-f]{5})$/;

function sha1Upper(password: string): string {
  return createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
}

export async function startFakeBreachedPasswords(options: FakeBreachedPasswordsOptions = {}): Promise<FakeBreachedPasswords> {
  const listed = Object.entries(options.passwords ?? KNOWN_BREACHED_PASSWORDS).map(([password, count]) => ({
    hash: sha1Upper(password),
    count,
  }));
  const requests: FakeRangeRequest[] = [];
  let faults: FakeBreachedPasswordsFaults = {};
  const sockets = new Set<Socket>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const addPadding = request.headers['add-padding'];
    requests.push({
      url: request.url ?? '',
      addPadding: Array.isArray(addPadding) ? addPadding.join(',') : addPadding,
      headers: JSON.stringify(request.rawHeaders),
    });
    const current = faults;
    if (current.hang === true) return;
    if (current.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, current.delayMs));
    if (current.status !== undefined) {
      response.writeHead(current.status).end();
      return;
    }
    if (current.body !== undefined) {
      response.writeHead(200, { 'content-type': 'text/plain' }).end(current.body);
      return;
    }
    const prefix = RANGE_PATH.exec(request.url ?? '')?.[1]?.toUpperCase();
    if (request.method !== 'GET' || prefix === undefined) {
      // As the real API answers a prefix that is not 5 hex characters.
      response.writeHead(400, { 'content-type': 'text/plain' }).end('The hash prefix was not in a valid format');
      return;
    }
    const lines = listed.filter(({ hash }) => hash.startsWith(prefix)).map(({ hash, count }) => `${hash.slice(5)}:${count}`);
    if (addPadding === 'true') {
      for (let i = 0; i < PADDING_LINES; i++) lines.push(`${randomBytes(18).toString('hex').slice(0, 35).toUpperCase()}:0`);
    }
    const text = lines.map((line) => (current.lowercase === true ? line.toLowerCase() : line)).join('\r\n');
    response.writeHead(200, { 'content-type': 'text/plain' }).end(text);
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
  // Loopback only: nothing off this machine can ask it.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/range/`,
    requests,
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

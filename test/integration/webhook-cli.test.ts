// `npm run webhook -- rotate` as a developer runs it: a verifiable signature, the password from stdin or the environment
// only, nothing secret on any command line or in the output, and non-loopback URLs refused before any connection.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyStandardWebhook } from '../../lib/webhooks/standard-webhooks.ts';

const CLI = join(import.meta.dirname, '../../local/launcher/webhook-cli.ts');
const TSX = join(import.meta.dirname, '../../node_modules/.bin/tsx');
const ROUTE = '/webhooks/syrve/credentials-rotated';
const ORG = '0190a3b4-0000-7000-8000-000000000001';
const CONNECTION = '0190a3b4-0000-7000-8000-000000000002';

// Canaries: random per run, so finding one anywhere can only mean it leaked from here.
const password = `pw-${randomBytes(12).toString('base64url')}`;
const secretKey = randomBytes(32).toString('base64');
const secret = `whsec_${secretKey}`;

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The command lines of the CLI's processes, read while its request was held open. */
  commandLines: string;
}

let folder: string;
let guard: string;
let server: Server;
let baseUrl: string;
let requests: Recorded[];
let answer: { status: number; body: (request: string) => string; headers?: Record<string, string> };
let cliPid = 0;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'webhook-cli-'));
  writeFileSync(join(folder, 'dev-secrets.json'), JSON.stringify({ WEBHOOK_SECRET: secret }), { mode: 0o600 });
  // Preloaded into the CLI: reports every TCP connection it starts (a unix socket, tsx's own IPC, is not reported).
  guard = join(folder, 'connect-guard.mjs');
  writeFileSync(
    guard,
    `import net from 'node:net';
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  // net.connect() passes its normalised arguments as one array.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : typeof first === 'string' && !/^\\d+$/.test(first) ? { path: first } : { host: args[1] };
  if (options.path === undefined) process.stderr.write('CONNECT-ATTEMPT ' + (options.host ?? 'localhost') + '\\n');
  return connect.apply(this, args);
};
`,
  );
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
        commandLines: commandLines(cliPid),
      });
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});

beforeEach(() => {
  requests = [];
  answer = { status: 200, body: () => JSON.stringify({ connectionId: CONNECTION, test: 'ok' }) };
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  rmSync(folder, { recursive: true, force: true });
});

/** Runs the CLI to its end: only PATH, HOME, the data folder and what the test adds reach it. */
async function runCli(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  const started = Date.now();
  const child = spawn(TSX, [CLI, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      RUNSTATE_DATA_DIR: folder,
      NODE_OPTIONS: `--import=${pathToFileURL(guard).href}`,
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  cliPid = child.pid ?? 0;
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdin.end(options.stdin ?? '');
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output, ms: Date.now() - started };
}

/** The command lines of a process and everything it started (tsx runs node under it). */
function commandLines(pid: number): string {
  const lines: string[] = [];
  const visit = (current: number): void => {
    try {
      lines.push(readFileSync(`/proc/${current}/cmdline`, 'utf8').replaceAll('\0', ' '));
      const children = readFileSync(`/proc/${current}/task/${current}/children`, 'utf8').trim();
      for (const next of children === '' ? [] : children.split(' ')) visit(Number(next));
    } catch {
      // gone meanwhile
    }
  };
  visit(pid);
  return lines.join('\n');
}

function rotateArgs(...extra: string[]): string[] {
  return ['rotate', '--org', ORG, '--connection', CONNECTION, '--login', 'api-user', ...extra];
}

function expectNoSecretIn(text: string): void {
  for (const canary of [password, Buffer.from(password).toString('base64'), secret, secretKey]) expect(text).not.toContain(canary);
}

describe('npm run webhook -- rotate', () => {
  it('sends a signed rotation with the password from stdin and the secret from the data folder, neither on a command line nor printed', async () => {
    const run = await runCli(rotateArgs('--url', baseUrl, '--password-stdin'), { stdin: `${password}\n` });
    expect(run.output).toContain('HTTP 200');
    expect(run.output).toContain(`{"connectionId":"${CONNECTION}","test":"ok"}`);
    expect(run.code).toBe(0);

    expect(requests).toHaveLength(1);
    const [request] = requests as [Recorded];
    expect({ method: request.method, url: request.url, type: request.headers['content-type'] }).toEqual({
      method: 'POST',
      url: ROUTE,
      type: 'application/json',
    });
    const verified = await verifyStandardWebhook({
      secret,
      headers: {
        id: request.headers['webhook-id'] as string,
        timestamp: request.headers['webhook-timestamp'] as string,
        signature: request.headers['webhook-signature'] as string,
      },
      rawBody: request.body,
      nowMs: Date.now(),
    });
    expect(verified.ok).toBe(true);
    expect(request.headers['webhook-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The trailing newline `echo` would add is not part of the password.
    expect(JSON.parse(request.body)).toEqual({ organizationId: ORG, connectionId: CONNECTION, login: 'api-user', password });

    // Positive controls: the command lines were read while the CLI ran, and the canary is findable where it belongs.
    expect(request.commandLines).toContain('--password-stdin');
    expect(request.body).toContain(password);
    expectNoSecretIn(request.commandLines);
    expectNoSecretIn(run.output);
  });

  it('takes the password from SYRVE_NEW_PASSWORD and the secret from WEBHOOK_SECRET; a given --id is sent, a non-2xx answer exits 1', async () => {
    const envSecret = `whsec_${randomBytes(24).toString('base64')}`;
    answer = { status: 409, body: () => JSON.stringify({ error: { code: 'CONFLICT', message: 'webhook already received' } }) };
    const run = await runCli(rotateArgs('--url', baseUrl, '--id', 'msg_replay_1'), {
      env: { SYRVE_NEW_PASSWORD: password, WEBHOOK_SECRET: envSecret },
    });
    expect(run.output).toContain('HTTP 409');
    expect(run.output).toContain('webhook already received');
    expect(run.code).toBe(1);
    const [request] = requests as [Recorded];
    expect(request.headers['webhook-id']).toBe('msg_replay_1');
    const headers = {
      id: 'msg_replay_1',
      timestamp: request.headers['webhook-timestamp'] as string,
      signature: request.headers['webhook-signature'] as string,
    };
    expect((await verifyStandardWebhook({ secret: envSecret, headers, rawBody: request.body, nowMs: Date.now() })).ok).toBe(true);
    // Signed with the environment's secret, not the data folder's.
    expect(await verifyStandardWebhook({ secret, headers, rawBody: request.body, nowMs: Date.now() })).toEqual({
      ok: false,
      reason: 'bad-signature',
    });
    expect(JSON.parse(request.body).password).toBe(password);
    expectNoSecretIn(request.commandLines);
    expectNoSecretIn(run.output);
    expect(run.output).not.toContain(envSecret.slice('whsec_'.length));
  });

  it('masks the password when a server echoes the request back', async () => {
    answer = { status: 200, body: (request) => request };
    const run = await runCli(rotateArgs('--url', baseUrl, '--password-stdin'), { stdin: password });
    expect(run.code).toBe(0);
    expect(run.output).toContain('"password":"[redacted]"');
    expectNoSecretIn(run.output);
  });

  it('shows a redirect without following it', async () => {
    // The target is a loopback port nobody serves: following it would show up as a second connection.
    answer = { status: 307, body: () => '', headers: { location: 'http://127.0.0.2:9/elsewhere' } };
    const run = await runCli(rotateArgs('--url', baseUrl, '--password-stdin'), { stdin: password });
    expect(run.output).toContain('HTTP 307');
    expect(run.output.match(/CONNECT-ATTEMPT/g)).toHaveLength(1);
    expect(run.code).toBe(1);
  });

  it('refuses without a password, before reading the secret or sending anything', async () => {
    const run = await runCli(rotateArgs('--url', baseUrl), { env: { RUNSTATE_DATA_DIR: join(folder, 'missing') } });
    expect(run.output).toContain('no new password: pipe it in with --password-stdin, or set SYRVE_NEW_PASSWORD');
    expect(run.code).toBe(1);
    expect(run.output).not.toContain('CONNECT-ATTEMPT');
    expect(requests).toHaveLength(0);
  });

  it('refuses a data folder npm start never ran in, rather than signing with a secret the app cannot know', async () => {
    const run = await runCli(rotateArgs('--url', baseUrl, '--password-stdin'), {
      stdin: password,
      env: { RUNSTATE_DATA_DIR: join(folder, 'missing') },
    });
    expect(run.output).toContain('no WEBHOOK_SECRET set and no');
    expect(run.code).toBe(1);
    expect(requests).toHaveLength(0);
  });

  it('refuses a non-loopback --url before any connection is attempted (to a name too, so nothing is looked up)', async () => {
    for (const url of ['http://10.0.0.1:1', 'http://[::ffff:10.0.0.1]:1', 'http://127.0.0.1.nip.io:1', 'http://example.com']) {
      const run = await runCli(rotateArgs('--url', url, '--password-stdin'), { stdin: password });
      expect(run.output).toContain('the webhook carries a password and goes to this machine only (loopback addresses)');
      expect(run.output).not.toContain('CONNECT-ATTEMPT');
      expect(run.code).toBe(1);
      // A connection attempt to an unreachable address would take far longer than starting tsx.
      expect(run.ms).toBeLessThan(10_000);
    }
    expect(requests).toHaveLength(0);
  });

  it('reaches the app through localhost as 127.0.0.1', async () => {
    const run = await runCli(rotateArgs('--url', baseUrl.replace('127.0.0.1', 'localhost'), '--password-stdin'), { stdin: password });
    expect(run.output).toContain('CONNECT-ATTEMPT 127.0.0.1');
    expect(run.code).toBe(0);
    expect(requests).toHaveLength(1);
  });
});

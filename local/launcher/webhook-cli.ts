// `npm run webhook -- rotate …`: sends a correctly signed credential-rotation webhook to the local app, the new password read from stdin or the environment.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isLoopbackHost } from '../emulators/neon/loopback.ts';
import { signStandardWebhook } from '../../lib/webhooks/standard-webhooks.ts';
import { devSecretsFile, loadDevSecrets } from './dev-secrets.ts';
import { displayPath, resolveDataDir } from './data-dir.ts';

const USAGE = `Usage: printf %s "$NEW_PASSWORD" | npm run -s webhook -- rotate --org <orgId> --connection <connectionId> --login <login> --password-stdin
       SYRVE_NEW_PASSWORD=… npm run -s webhook -- rotate --org <orgId> --connection <connectionId> --login <login>

Sends POST /webhooks/syrve/credentials-rotated, signed per Standard Webhooks, with body
{ organizationId, connectionId, login, password }; prints the HTTP status and the response body.
Exits 0 on a 2xx answer, 1 otherwise.

  --org, --connection, --login   what the body carries
  --password-stdin               read the new password from stdin (one trailing newline is dropped);
                                 else $SYRVE_NEW_PASSWORD. Never on the command line, which every user can read.
  --id <webhook-id>              the webhook-id (default: a fresh UUID); repeat one to see the replay refused (409)
  --url <base-url>               the app (default http://127.0.0.1:$PORT, PORT defaulting to 8787); loopback only
Secret: $WEBHOOK_SECRET, else the one in <data>/dev-secrets.json that npm start made (never printed).
<data> is $RUNSTATE_DATA_DIR, else .data/ at the repository root.`;

const ROUTE = '/webhooks/syrve/credentials-rotated';
// A password is short; a bigger stdin is a mistake (a file piped in), not a password.
const MAX_PASSWORD_BYTES = 4096;
const MAX_PRINTED_CHARS = 4096;
const REQUEST_TIMEOUT_MS = 30_000;

class UsageError extends Error {}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      org: { type: 'string' },
      connection: { type: 'string' },
      login: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      id: { type: 'string' },
      url: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help === true) {
    console.log(USAGE);
    return;
  }
  const env = process.env;
  // The target first: nothing is read, signed or sent before it is known to be this machine.
  const endpoint = loopbackEndpoint(values.url ?? `http://127.0.0.1:${env.PORT || '8787'}`);
  if (positionals.length !== 1 || positionals[0] !== 'rotate') throw new UsageError('the one command is `rotate`');
  const organizationId = required(values.org, '--org');
  const connectionId = required(values.connection, '--connection');
  const login = required(values.login, '--login');
  const id = values.id ?? crypto.randomUUID();

  const password = values['password-stdin'] === true ? await passwordFromStdin() : env.SYRVE_NEW_PASSWORD;
  if (password === undefined || password === '') {
    throw new UsageError('no new password: pipe it in with --password-stdin, or set SYRVE_NEW_PASSWORD');
  }
  const secret = await webhookSecret(env);
  const rawBody = JSON.stringify({ organizationId, connectionId, login, password });
  const timestampSeconds = Math.floor(Date.now() / 1000);
  const signature = await signStandardWebhook({ secret, id, timestampSeconds, rawBody });

  const response = await send(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestampSeconds),
      'webhook-signature': signature,
    },
    body: rawBody,
    // A redirect could carry the password elsewhere: it is shown, never followed.
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  console.log(`HTTP ${response.status}  webhook-id ${id}`);
  // The contract's answer holds no secret; a misbehaving server's echo is masked all the same.
  const masked = [password, JSON.stringify(password).slice(1, -1), secret];
  if (text !== '') console.log(redact(text, masked).slice(0, MAX_PRINTED_CHARS));
  if (response.status < 200 || response.status > 299) process.exitCode = 1;
}

/** The route on a loopback base URL; anything else is refused here, before any connection (no DNS lookup either). */
function loopbackEndpoint(base: string): URL {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError(`--url is not a URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url must be http(s), not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw new UsageError('--url must not carry credentials');
  if (!isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing ${url.host}: the webhook carries a password and goes to this machine only (loopback addresses)`);
  }
  // "localhost" is a name a resolver could send anywhere; the address it stands for is used instead.
  if (url.hostname.toLowerCase() === 'localhost') url.hostname = '127.0.0.1';
  return new URL(ROUTE, url);
}

/** fetch, with its bare "fetch failed" turned into what went wrong (ECONNREFUSED: npm start is not running). */
async function send(endpoint: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(endpoint, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new Error(`cannot reach ${endpoint.origin} (${reason}); is npm start running?`);
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('--password-stdin reads a pipe, e.g. printf %s "$NEW_PASSWORD" | npm run -s webhook -- …');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_PASSWORD_BYTES) throw new UsageError(`stdin holds more than ${MAX_PASSWORD_BYTES} bytes; a password is expected`);
    chunks.push(chunk);
  }
  // `echo` adds a newline that `printf %s` does not; a password never ends in one.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** $WEBHOOK_SECRET, else the data folder's; a folder npm start never ran in is refused rather than given a new secret the app cannot know. */
async function webhookSecret(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.WEBHOOK_SECRET) return env.WEBHOOK_SECRET;
  const dataDir = resolveDataDir(env);
  const file = devSecretsFile(dataDir);
  if (!existsSync(file)) throw new Error(`no WEBHOOK_SECRET set and no ${displayPath(file)}: run npm start first, or set WEBHOOK_SECRET`);
  return (await loadDevSecrets(dataDir, env)).values.WEBHOOK_SECRET;
}

function redact(text: string, secrets: string[]): string {
  return secrets.reduce((out, secret) => out.replaceAll(secret, '[redacted]'), text);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`webhook: ${message}${error instanceof UsageError ? `\n\n${USAGE}` : ''}`);
  process.exitCode = 1;
});

// The email API notifier against a real HTTP server on loopback: one JSON POST with the bearer token, no redirect
// followed, and a refusal that says the status only (never the message, which carries the reset link).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailApiNotifier } from '../../lib/notify/email-api.ts';

let server: Server;
let base: string;
let answer = 202;
const received: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (answer === 302) res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      else res.writeHead(answer, { 'content-type': 'application/json' }).end(`{"echo":${JSON.stringify(body)}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const message = {
  kind: 'password-reset' as const,
  to: 'someone@example.test',
  subject: 'Reset your password',
  text: 'open https://app.example/auth/password-reset#token=rsp_canary',
  correlationId: 'c-1',
};

describe('the email API notifier', () => {
  it('posts { from, to, subject, text } as JSON with the bearer token', async () => {
    answer = 202;
    const notifier = createEmailApiNotifier({ url: `${base}/send`, token: 'mail-token', from: 'no-reply@example.test' });
    await notifier.send(message);
    const last = received.at(-1)!;
    expect(last.method).toBe('POST');
    expect(last.url).toBe('/send');
    expect(last.headers.authorization).toBe('Bearer mail-token');
    expect(JSON.parse(last.body)).toEqual({ from: 'no-reply@example.test', to: message.to, subject: message.subject, text: message.text });
  });

  it('rejects a refusal or a redirect naming the status only, never the message', async () => {
    const notifier = createEmailApiNotifier({ url: `${base}/send`, token: 'mail-token', from: 'no-reply@example.test' });
    for (const status of [500, 302]) {
      answer = status;
      const before = received.length;
      const error = await notifier.send(message).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toBe(`email API answered ${status}`);
      expect(error?.message).not.toContain('rsp_canary');
      // A redirect is not followed: the one request is all the server saw.
      expect(received.length).toBe(before + 1);
    }
  });
});

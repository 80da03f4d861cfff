// Requests Node's HTTP parser refuses before the app sees them still get the error body of docs/api.md.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ServerType } from '@hono/node-server';
import { serveNode } from '../../functions/entries/node.ts';
import { loadConfig } from '../../lib/config/index.ts';
import { ERROR_CATALOG, type ErrorCode } from '../../lib/http/error-catalog.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let server: ServerType;
let port: number;
beforeAll(async () => {
  stack = await startStack();
  server = await serveNode({ ...loadConfig(stack.env), port: 0 });
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await stack?.close();
});

/** Sends `head` as is and reads until the server closes the connection. */
function rawRequest(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(head, 'latin1');
  });
}

function parse(answer: string): { status: number; contentType: string | undefined; head: string; body: string } {
  const [head = '', ...rest] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1];
  return { status, contentType, head, body: rest.join('\r\n\r\n') };
}

it.each([
  [
    'a control character in a header value',
    'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Correlation-Id: \x07canary-secret\r\n\r\n',
    400,
    'VALIDATION_FAILED',
  ],
  ['a header line without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n', 400, 'VALIDATION_FAILED'],
  ['a malformed request line', 'GET /healthz HTTP/9.x\r\nHost: x\r\n\r\n', 400, 'VALIDATION_FAILED'],
  ['headers over the size limit', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
])('%s: a JSON error body with the code of its status, nothing echoed', async (_name, head, status, code) => {
  const answer = parse(await rawRequest(head));
  expect(answer.status).toBe(status);
  expect(answer.contentType).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(ERROR_CATALOG[code as ErrorCode].status).toBe(status);
  expect(typeof body.error.message).toBe('string');
  expect(answer.body).not.toContain('canary');
  // The app's security headers, though the app never saw the request.
  for (const line of ['x-content-type-options: nosniff', 'x-frame-options: DENY', 'referrer-policy: no-referrer']) {
    expect(answer.head).toContain(`\r\n${line}\r\n`);
  }
});

it('a body announced but never sent is answered 408 with the error body within the 10 s receive limit', async () => {
  const started = Date.now();
  const answer = parse(
    await rawRequest(
      'POST /webhooks/syrve/credentials-rotated HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{}',
    ),
  );
  expect(answer.status).toBe(408);
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(JSON.parse(answer.body)).toEqual({ error: { code: 'REQUEST_TIMEOUT', message: ERROR_CATALOG.REQUEST_TIMEOUT.message } });
  expect(Date.now() - started).toBeLessThan(13_000);
}, 20_000);

// A webhook receiver on 127.0.0.1 for npm start, the tests and the bench: it verifies each delivery with the
// `standardwebhooks` package and keeps what it received; its answers can be set (a status, a redirect, a delay, a hold).
// `PUT /_receiver/secret` (a whsec_ secret as the body) tells it the secret to verify with: npm start's walkthrough
// pipes the one an endpoint's create answered into it, so the secret is in no process's argv.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

const SECRET_PATH = '/_receiver/secret';
const WHSEC = /^whsec_[A-Za-z0-9+/]{20,88}={0,2}$/;

export interface ReceivedDelivery {
  webhookId: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Which of the receiver's secrets verified it (their index), or undefined when none did (or none was given). */
  verifiedBy: number | undefined;
  /** The answer's status. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** Requests read but not answered yet (a delay or a hold keeps them). */
  inFlight: number;
  /**
   * What the next answers are: a status (default 204), a redirect's Location with a 3xx, a delay before answering, or
   * a hold until `releaseHeld` (a test that needs a send in flight for as long as it takes, not for a guessed time).
   */
  answer(next: { status?: number; location?: string; delayMs?: number; hold?: boolean }): void;
  /** Answers every held request now. */
  releaseHeld(): void;
  /** The secrets each delivery is verified with (the package's verify: signature and a ±5 min timestamp). */
  setSecrets(secrets: readonly string[]): void;
  /** Called after each delivery is kept (npm start prints it). */
  onDelivery?: (delivery: ReceivedDelivery) => void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: { secrets?: readonly string[]; port?: number } = {}): Promise<WebhookReceiver> {
  let secrets = [...(options.secrets ?? [])];
  let next: { status: number; location?: string; delayMs: number; hold: boolean } = { status: 204, delayMs: 0, hold: false };
  const received: ReceivedDelivery[] = [];
  const held: Array<() => void> = [];
  const receiver: WebhookReceiver = {
    url: '',
    received,
    inFlight: 0,
    answer(update) {
      next = {
        status: update.status ?? 204,
        delayMs: update.delayMs ?? 0,
        hold: update.hold ?? false,
        ...(update.location !== undefined ? { location: update.location } : {}),
      };
    },
    releaseHeld() {
      for (const reply of held.splice(0)) reply();
    },
    setSecrets(list) {
      secrets = [...list];
    },
    close: () => {
      receiver.releaseHeld();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (request.url === SECRET_PATH) {
        const secret = body.trim();
        const accepted = request.method === 'PUT' && WHSEC.test(secret);
        if (accepted) secrets = [secret];
        response.writeHead(accepted ? 204 : 400).end();
        return;
      }
      const header = (name: string) => String(request.headers[name] ?? '');
      const headers = {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      };
      const verifiedBy = secrets.findIndex((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      const answer = next;
      receiver.inFlight += 1;
      const delivery: ReceivedDelivery = {
        webhookId: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        verifiedBy: verifiedBy === -1 ? undefined : verifiedBy,
        status: answer.status,
      };
      const reply = () => {
        receiver.inFlight -= 1;
        received.push(delivery);
        receiver.onDelivery?.(delivery);
        if (answer.location !== undefined) response.setHeader('location', answer.location);
        response.writeHead(answer.status).end();
      };
      if (answer.hold) held.push(reply);
      else if (answer.delayMs > 0) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

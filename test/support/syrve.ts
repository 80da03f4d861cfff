// Syrve helpers for the integration tests: a fake upstream per test file, connections made through the API, signed rotations.
import { uuidv7 } from 'uuidv7';
import { signStandardWebhook } from '../../lib/webhooks/standard-webhooks.ts';
import type { SeededOrganization } from '../../local/stack/fixtures.ts';
import type { FakeSyrve } from '../../local/fakes/index.ts';
import type { PublicConnection } from '../../lib/runtime/syrve/connection.ts';
import { TEST_WEBHOOK_SECRET } from './fixtures.ts';
import type { TestStack } from './stack.ts';

export { startFakeSyrve, type FakeSyrve } from '../../local/fakes/index.ts';

interface Requester {
  request: TestStack['request'];
}

/** Creates a connection to the fake through the API (the account is set on the fake first). */
export async function connectFake(
  stack: Requester,
  org: SeededOrganization,
  fake: FakeSyrve,
  options: { login?: string; password?: string; name?: string } = {},
): Promise<PublicConnection> {
  const login = options.login ?? `login-${uuidv7().slice(-8)}`;
  const password = options.password ?? `pw-${uuidv7()}`;
  fake.setAccount(login, password);
  const response = await stack.request('POST', `/orgs/${org.organizationId}/syrve/connections`, {
    token: org.adminToken,
    body: { name: options.name ?? `rms-${uuidv7().slice(-8)}`, baseUrl: fake.url, login, password },
  });
  if (response.status !== 201) throw new Error(`create connection: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { connection: PublicConnection }).connection;
}

export function storesPath(org: { organizationId: string }, connection: { connectionId: string }): string {
  return `/orgs/${org.organizationId}/syrve/connections/${connection.connectionId}/stores`;
}

export interface RotationDelivery {
  id?: string;
  timestampSeconds?: number;
  secret?: string;
  /** Replaces the computed signature header. */
  signature?: string;
}

/** Sends a rotation webhook signed as a sender would (Standard Webhooks). */
export async function sendRotation(
  stack: Requester,
  body: { organizationId: string; connectionId: string; login: string; password: string },
  delivery: RotationDelivery = {},
): Promise<Response> {
  const id = delivery.id ?? `msg_${uuidv7()}`;
  const timestampSeconds = delivery.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const rawBody = JSON.stringify(body);
  const signature =
    delivery.signature ?? (await signStandardWebhook({ secret: delivery.secret ?? TEST_WEBHOOK_SECRET, id, timestampSeconds, rawBody }));
  return stack.request('POST', '/webhooks/syrve/credentials-rotated', {
    rawBody,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestampSeconds),
      'webhook-signature': signature,
    },
  });
}

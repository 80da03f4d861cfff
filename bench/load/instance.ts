// One app instance of the load mode, in a worker thread of its own (as an isolate or a Lambda is its own): the real app
// composed from the bench's environment, its share of the callers, the mix driven until told the time is up.
import { parentPort, workerData } from 'node:worker_threads';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { composeApp } from '../../local/stack/app.ts';
import { mintToken } from '../../local/stack/tokens.ts';
import { drive, type DriveResult } from './driver.ts';
import type { LoadContext } from './operations.ts';
import { createPools } from './pools.ts';
import type { HeldInvite, SignedIn } from './state.ts';
import type { LoadMember, LoadOrganization } from './tenants.ts';

/** What the main thread hands each instance (structured-cloned; the environment holds the bench's own secrets). */
export interface InstanceData {
  env: Record<string, string>;
  index: number;
  callers: number;
  warmUpMs: number;
  organizations: LoadOrganization[];
  members: LoadMember[];
  sessions: SignedIn[];
  invites: HeldInvite[];
  connections: Map<string, string>;
  password: string;
}

/** Messages: the instance says `ready` after its warm-up, is told `{ durationMs }`, and answers its DriveResult. */
export type InstanceMessage = { ready: true } | { result: DriveResult };

const data = workerData as InstanceData;
const port = parentPort;
if (port === null) throw new Error('bench/load/instance.ts runs as a worker thread');

// Silent logs (the report is the figures) and a notifier that sends nothing, as the bench stack's own app has.
const { request } = composeApp(data.env, { logger: createJsonLogger(() => undefined), notifier: { send: async () => undefined } });
const secret = data.env.AUTH_JWT_SECRET ?? '';
const context: LoadContext = {
  request,
  token: (claims) => mintToken(secret, claims),
  pools: createPools(data, data.index * 997),
  organizations: new Map(data.organizations.map((org) => [org.organizationId, org])),
  connections: data.connections,
  password: data.password,
};

// The mix, untimed, first: JIT, connections and script loading land here, not in the figures.
await drive(context, { callers: data.callers, durationMs: data.warmUpMs });
port.postMessage({ ready: true } satisfies InstanceMessage);
port.once('message', (message: { durationMs: number }) => {
  void drive(context, { callers: data.callers, durationMs: message.durationMs }).then((result) =>
    port.postMessage({ result } satisfies InstanceMessage),
  );
});

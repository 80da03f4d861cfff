// Syrve/iiko runtime sessions: the stores route on a cached session and on a cold one, and the logins of a cold crowd.
import { randomBytes } from 'node:crypto';
import { createDeps } from '../../lib/create-deps.ts';
import type { Deps } from '../../lib/deps.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { syrve } from '../../lib/runtime/syrve/index.ts';
import type { PublicConnection } from '../../lib/runtime/syrve/connection.ts';
import { mapConcurrently } from '../concurrently.ts';
import type { BenchCall, BurstBench, OperationBench } from '../operation.ts';
import type { BenchStack } from '../stack.ts';

const SETUP_CONCURRENCY = 8;
/** The crowd of syrve.logins: calls, callers in flight at once, and the app instances (isolates) they are spread over. */
const BURST_CALLS = 1_000;
const BURST_CALLERS = 50;
const BURST_INSTANCES = 10;
/** Every answer of the fake is held this long during the burst, as a real RMS server takes: the callers overlap the login. */
const BURST_UPSTREAM_DELAY_MS = 75;

type Organization = Awaited<ReturnType<BenchStack['seedOrganization']>>;

/** `count` connections of `org` to the fake upstream, made through the runtime operation (untimed), one account for all. */
async function createConnections(stack: BenchStack, org: Organization, count: number): Promise<PublicConnection[]> {
  const login = `bench-${randomBytes(4).toString('hex')}`;
  const password = randomBytes(16).toString('base64url');
  stack.syrveUpstream.setAccount(login, password);
  return mapConcurrently(count, SETUP_CONCURRENCY, async (i) => {
    const outcome = await syrve.create(stack.deps, {
      organizationId: org.organizationId,
      name: `bench-rms-${i}`,
      baseUrl: stack.syrveUpstream.url,
      login,
      password,
      actorUserId: org.adminId,
      correlationId: 'bench-setup',
    });
    if (!outcome.ok) throw new Error(`bench setup: syrve.create refused (${outcome.reason})`);
    return outcome.connection;
  });
}

const storesPath = (org: Organization, connection: PublicConnection) =>
  `/orgs/${org.organizationId}/syrve/connections/${connection.connectionId}/stores`;

/** Checks a stores answer: 200, a stores list, and how the session was found (so a hit bench cannot quietly measure misses). */
async function expectStores(operation: string, response: Response, session?: 'cached' | 'acquired'): Promise<void> {
  const text = await response.text();
  // Error bodies of this API carry a code and a message, never a secret.
  if (response.status !== 200) throw new Error(`${operation}: expected HTTP 200, got ${response.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { stores?: unknown[]; session?: string };
  if (!Array.isArray(body.stores) || body.stores.length === 0) throw new Error(`${operation}: the answer has no stores`);
  if (session !== undefined && body.session !== session)
    throw new Error(`${operation}: expected a ${session} session, got ${body.session}`);
}

export const acquireHitBench: OperationBench = {
  name: 'syrve.acquire.hit',
  roundTrips: { redis: 2, revocation: 1, pg: 2 },
  describe:
    'GET /orgs/{orgId}/syrve/connections/{id}/stores with the session cached (auth, RBAC beside the connection read, one MGET, the stores call at the fake)',
  async prepare(stack) {
    const org = await stack.seedOrganization({ bound: true });
    const [connection] = await createConnections(stack, org, 1);
    const path = storesPath(org, connection as PublicConnection);
    // The first warm-up call logs in; every later one, and so every timed one, must find the session cached.
    return async (i) =>
      expectStores('syrve.acquire.hit', await stack.request('GET', path, { token: org.adminToken }), i === 0 ? undefined : 'cached');
  },
};

export const acquireMissBench: OperationBench = {
  name: 'syrve.acquire.miss',
  roundTrips: { redis: 4, revocation: 1, pg: 2 },
  describe:
    'the same GET on a connection never used before (no session, lock or failure count): MGET, the lock script, the login, the store script, the stores call',
  async prepare(stack, count) {
    // A fresh connection per call is a cold cache without a DEL in the timed section. Bound as sign-in issues the token,
    // so the connection read goes beside the role check as for the hit (functions/syrve/index.ts).
    const org = await stack.seedOrganization({ bound: true });
    const connections = await createConnections(stack, org, count);
    return async (i) => {
      const path = storesPath(org, connections[i] as PublicConnection);
      await expectStores('syrve.acquire.miss', await stack.request('GET', path, { token: org.adminToken }), 'acquired');
    };
  },
};

export const loginsBurst: BurstBench = {
  name: 'syrve.logins',
  describe:
    `${BURST_CALLS} stores calls (syrve.stores, the route's operation) of one connection on a cold cache by ${BURST_CALLERS} ` +
    `concurrent callers, round-robin over ${BURST_INSTANCES} Deps (own clients and in-flight table each), every fake answer ` +
    `held ${BURST_UPSTREAM_DELAY_MS} ms (target: 1 login)`,
  calls: BURST_CALLS,
  concurrency: BURST_CALLERS,
  async prepare(stack) {
    const org = await stack.seedOrganization();
    const [warm, cold] = await Promise.all(
      (await createConnections(stack, org, 2)).map((c) =>
        syrve.load(stack.deps, { organizationId: org.organizationId, connectionId: c.connectionId }),
      ),
    );
    if (warm === undefined || cold === undefined) throw new Error('bench setup: a connection just made cannot be read');
    // Ten isolates' worth of Deps on the same stores. The callers skip HTTP: fifty authenticated requests in flight in
    // this one process (app instances, proxies and fake together) spend their time on token checks and PostgreSQL
    // round trips, and their revocation checks miss the 800 ms deadline; the login count is the session's alone.
    const instances = Array.from({ length: BURST_INSTANCES }, () =>
      createDeps(stack.config, { logger: createJsonLogger(() => undefined) }),
    );
    // Each instance's first calls (JIT, connections, the upstream client) go to another connection, so the burst
    // measures the session, not cold starts.
    for (const deps of instances) {
      for (let i = 0; i < 3; i += 1) expectStoresOutcome('syrve.logins warm-up', await syrve.stores(deps, warm, 'bench-warm-up'));
    }
    stack.syrveUpstream.setDelay(BURST_UPSTREAM_DELAY_MS);
    const call: BenchCall = async (i) => {
      const deps = instances[i % BURST_INSTANCES] as Deps;
      expectStoresOutcome('syrve.logins', await syrve.stores(deps, cold, `bench-burst-${i}`));
    };
    call.finish = async () => stack.syrveUpstream.setDelay(0);
    return call;
  },
};

function expectStoresOutcome(operation: string, outcome: Awaited<ReturnType<typeof syrve.stores>>): void {
  if (!outcome.ok) throw new Error(`${operation}: syrve.stores failed (${outcome.reason})`);
  if (outcome.value.length === 0) throw new Error(`${operation}: the answer has no stores`);
}

export const syrveBenches: OperationBench[] = [acquireHitBench, acquireMissBench];

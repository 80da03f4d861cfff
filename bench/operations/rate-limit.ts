// The API rate limiter's costs and effect: an authenticated read with and without its count (round trips, the round
// trips in sequence, p50/p99), a refused caller's answer, and another tenant's p99 quiet and beside a flood.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { uuidv7 } from 'uuidv7';
import { createApp } from '../../functions/app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { setPassword } from '../../local/stack/fixtures.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { RateLimitMemo } from '../../lib/rate-limit-memo.ts';
import type { FigureBench, FigureResult } from '../operation.ts';
import { percentile } from '../runner.ts';
import { startBenchStack, type BenchStack } from '../stack.ts';

const CALLS = 300;
const LATENCY_CALLS = 60;
/** Added to every round trip at the proxies for the "in sequence" figure: p50 / this ≈ round trips one after another. */
const LATENCY_MS = 20;
const FLOOD_CALLERS = 8;
/** The noisy tenant's admins the flood's callers take turns as, each far under its own limits. */
const FLOOD_USERS = 50;

/** The limiter with nothing to count: every request takes its outage path (no round trip), as before the limiter. */
export class NoCount extends RateLimitMemo {
  override skipping(): boolean {
    return true;
  }
}

type Call = () => Promise<Response>;

/** One isolate of the app on the bench's stores, with its own limiter memory. */
function isolate(stack: BenchStack, rateLimits: RateLimitMemo) {
  const deps = createDeps(stack.config, { logger: createJsonLogger(() => undefined), rateLimits });
  const app = createApp(() => deps, { clientIp: () => '10.9.0.1', defer: (_c, work) => void work });
  return async (path: string, token: string): Promise<Response> => app.request(path, { headers: { authorization: `Bearer ${token}` } });
}

async function timed(call: Call, calls: number, status: number): Promise<{ p50Ms: number; p99Ms: number }> {
  const timings = new Float64Array(calls);
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    const response = await call();
    const body = await response.text();
    timings[i] = performance.now() - started;
    if (response.status !== status) throw new Error(`ratelimit bench: expected ${status}, got ${response.status} ${body}`);
  }
  timings.sort();
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { p50Ms: round(percentile(timings, 50)), p99Ms: round(percentile(timings, 99)) };
}

async function roundTrips(stack: BenchStack, call: Call, calls: number, status: number) {
  stack.counters.reset();
  for (let i = 0; i < calls; i++) {
    const response = await call();
    const body = await response.text();
    if (response.status !== status) throw new Error(`ratelimit bench: expected ${status}, got ${response.status} ${body}`);
  }
  const counted = stack.counters.read();
  const per = (n: number) => Math.round((n / calls) * 100) / 100;
  return {
    redis: per(counted.redis),
    revocation: per(counted.revocation),
    pg: per(counted.pg),
    redisCommands: per(counted.redisCommands),
    revocationCommands: per(counted.revocationCommands),
  };
}

/** An access token bound to the organisation (its `org` claim), as sign-in issues: the organisation's counters alone. */
async function boundToken(stack: BenchStack, org: { organizationId: string; adminId: string; adminEmail: string }): Promise<string> {
  const password = `bench-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  const response = await stack.request('POST', '/auth/login', {
    body: { organizationId: org.organizationId, email: org.adminEmail, password },
    headers: { [TEST_CLIENT_IP_HEADER]: '10.9.0.2' },
  });
  if (response.status !== 200) throw new Error(`ratelimit bench: sign-in answered ${response.status}`);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

async function planned(stack: BenchStack, limits: { userRoute?: number; tenant?: number }) {
  const org = await stack.seedOrganization();
  await stack.db.query(
    'INSERT INTO organization_rate_limits (organization_id, user_route_per_minute, tenant_per_minute) VALUES ($1, $2, $3)',
    [org.organizationId, limits.userRoute ?? null, limits.tenant ?? null],
  );
  return org;
}

/**
 * The noisy tenant's callers in a process of their own (bench/rate-limit-flood.ts), once they are flooding. They are
 * the tenant's own admins: an outsider's refused calls are given back to the tenant and never fill its limit.
 */
async function startFlood(stack: BenchStack, organizationId: string, limited: boolean) {
  const userIds = Array.from({ length: FLOOD_USERS }, () => uuidv7());
  await stack.db.query(
    `WITH added AS (INSERT INTO users (id, email) SELECT id, id || '@flood.bench.test' FROM unnest($1::uuid[]) AS id RETURNING id)
     INSERT INTO role_assignments (id, user_id, organization_id, role_code)
     SELECT gen_random_uuid(), id, $2, 'OrganizationAdmin' FROM added`,
    [userIds, organizationId],
  );
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './local/raw-text/register.mjs', new URL('../rate-limit-flood.ts', import.meta.url).pathname],
    {
      env: {
        ...process.env,
        RATE_LIMIT_FLOOD: JSON.stringify({
          env: stack.appEnv,
          organizationId,
          userIds,
          jwtSecret: stack.jwtSecret,
          callers: FLOOD_CALLERS,
          limited,
        }),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  if ((await lines.next()).value !== 'ready') throw new Error('ratelimit bench: the flood did not start');
  // Flooding for a moment before the quiet tenant is timed.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return {
    async stop(): Promise<{ admitted: number; refused: number }> {
      child.stdin.end();
      const last = await lines.next();
      await once(child, 'exit');
      return JSON.parse(String(last.value)) as { admitted: number; refused: number };
    },
  };
}

export const rateLimitBench: FigureBench = {
  name: 'ratelimit',
  describe:
    `GET /orgs/{orgId}/members/count (a cache hit), ${CALLS} calls one at a time: "before" on an isolate whose limiter ` +
    `never counts, "after" with the count (an unbound token: the user-scope count beside); seqRoundTrips = p50 with ` +
    `${LATENCY_MS} ms added per round trip ÷ ${LATENCY_MS}. read.bound: the same with a signed-in token (org claim). ` +
    `blocked: a caller this isolate refused (plan: 5 a minute on the route), after the revocation check. fairness: another tenant's read p99 alone, then ` +
    `beside ${FLOOD_CALLERS} concurrent callers flooding a tenant whose plan allows 200 a minute from another process (another isolate); ` +
    `unlimited*: the same flood from an isolate whose limiter never counts.`,
  async measure(teardown): Promise<FigureResult[]> {
    const stack = await startBenchStack(teardown);
    const org = await stack.seedOrganization();
    const path = `/orgs/${org.organizationId}/members/count`;
    const before = isolate(stack, new NoCount());
    const after = isolate(stack, new RateLimitMemo());
    const read =
      (get: typeof before): Call =>
      () =>
        get(path, org.adminToken);
    for (let i = 0; i < 50; i++) await (await after(path, org.adminToken)).arrayBuffer();
    const beforeTrips = await roundTrips(stack, read(before), 100, 200);
    const afterTrips = await roundTrips(stack, read(after), 100, 200);
    const beforeTime = await timed(read(before), CALLS, 200);
    const afterTime = await timed(read(after), CALLS, 200);
    stack.addLatency(LATENCY_MS);
    const beforeSlow = await timed(read(before), LATENCY_CALLS, 200);
    const afterSlow = await timed(read(after), LATENCY_CALLS, 200);
    stack.addLatency(0);
    // The same read with a signed-in (bound) token: no user-scope count beside the organisation's.
    const bound = await boundToken(stack, org);
    const boundRead: Call = () => after(path, bound);
    for (let i = 0; i < 20; i++) await (await boundRead()).arrayBuffer();
    const boundTrips = await roundTrips(stack, boundRead, 100, 200);
    stack.addLatency(LATENCY_MS);
    const boundSlow = await timed(boundRead, LATENCY_CALLS, 200);
    stack.addLatency(0);

    // A caller refused once is refused from the isolate's memory: no round trip to either store.
    const limited = await planned(stack, { userRoute: 5 });
    const blockedPath = `/orgs/${limited.organizationId}/members/count`;
    for (let i = 0; i < 6; i++) await (await after(blockedPath, limited.adminToken)).arrayBuffer();
    const blockedCall: Call = () => after(blockedPath, limited.adminToken);
    const blockedTrips = await roundTrips(stack, blockedCall, 100, 429);
    const blockedTime = await timed(blockedCall, CALLS, 429);

    // Another tenant's read, alone and beside a flood (many users of one tenant, so its tenant limit is what refuses).
    const quiet = await stack.seedOrganization();
    const quietCall: Call = () => after(`/orgs/${quiet.organizationId}/members/count`, quiet.adminToken);
    for (let i = 0; i < 20; i++) await (await quietCall()).arrayBuffer();
    const alone = await timed(quietCall, CALLS, 200);
    const noisy = await planned(stack, { tenant: 200 });
    const besideFlood = async (limited: boolean) => {
      const flooding = await startFlood(stack, noisy.organizationId, limited);
      try {
        return { time: await timed(quietCall, CALLS, 200), counts: await flooding.stop() };
      } catch (error) {
        await flooding.stop().catch(() => undefined);
        throw error;
      }
    };
    const unlimited = await besideFlood(false);
    const limitedFlood = await besideFlood(true);
    const beside = limitedFlood.time;
    const flood = limitedFlood.counts;
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    return [
      {
        name: 'ratelimit.read',
        figures: {
          beforeRedisRoundTrips: beforeTrips.redis,
          afterRedisRoundTrips: afterTrips.redis,
          revocationRoundTrips: afterTrips.revocation,
          pgRoundTrips: afterTrips.pg,
          beforeP50Ms: beforeTime.p50Ms,
          beforeP99Ms: beforeTime.p99Ms,
          afterP50Ms: afterTime.p50Ms,
          afterP99Ms: afterTime.p99Ms,
          beforeSeqRoundTrips: Math.round((beforeSlow.p50Ms / LATENCY_MS) * 10) / 10,
          afterSeqRoundTrips: Math.round((afterSlow.p50Ms / LATENCY_MS) * 10) / 10,
          afterRedisCommands: afterTrips.redisCommands,
          revocationCommands: afterTrips.revocationCommands,
        },
      },
      {
        name: 'ratelimit.read.bound',
        figures: {
          redisRoundTrips: boundTrips.redis,
          redisCommands: boundTrips.redisCommands,
          revocationRoundTrips: boundTrips.revocation,
          pgRoundTrips: boundTrips.pg,
          seqRoundTrips: Math.round((boundSlow.p50Ms / LATENCY_MS) * 10) / 10,
        },
      },
      {
        name: 'ratelimit.blocked',
        figures: {
          redisRoundTrips: blockedTrips.redis,
          revocationRoundTrips: blockedTrips.revocation,
          revocationCommands: blockedTrips.revocationCommands,
          p50Ms: blockedTime.p50Ms,
          p99Ms: blockedTime.p99Ms,
        },
      },
      {
        name: 'ratelimit.fairness',
        figures: {
          quietP50Ms: alone.p50Ms,
          quietP99Ms: alone.p99Ms,
          floodP50Ms: beside.p50Ms,
          floodP99Ms: beside.p99Ms,
          p99Ratio: ratio(beside.p99Ms, alone.p99Ms),
          floodAdmitted: flood.admitted,
          floodRefused: flood.refused,
          unlimitedFloodP50Ms: unlimited.time.p50Ms,
          unlimitedFloodP99Ms: unlimited.time.p99Ms,
          unlimitedP99Ratio: ratio(unlimited.time.p99Ms, alone.p99Ms),
          unlimitedFloodAdmitted: unlimited.counts.admitted,
        },
      },
    ];
  },
};

// Health, the OpenAPI document and correlation ids, as a client sees them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RETRY_AFTER_UNAVAILABLE_SECONDS } from '../../lib/http/error-handler.ts';
import { createRedisStore } from '../../lib/redis/index.ts';
import { checkHealth } from '../../lib/runtime/health.ts';
import { HEALTH_MAX_AGE_MS } from '../../lib/runtime/health-memo.ts';
import { startRedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { startRedisServer } from '../../local/processes/redis-server.ts';
import { startStack, type TestStack } from '../support/stack.ts';

/** The run's redis-server keeps Redis's default policy. */
const NOEVICTION = { redis: 'noeviction', revocation: 'noeviction' };
const UNKNOWN = { redis: 'unknown', revocation: 'unknown' };

/** The stack's clock runs this far ahead of the machine's: moving it on ages the isolate's health result (no sleep). */
let offsetMs = 0;
const clock = { now: () => Date.now() + offsetMs };
/** Past the health result's age (lib/runtime/health-memo.ts), so the next /healthz runs a check of its own. */
const ageHealthResult = () => {
  offsetMs += HEALTH_MAX_AGE_MS + 1;
};

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ deps: { clock } });
});
afterAll(async () => stack?.close());

it('healthz is 200 when every store answers and 503 naming the one that is down, with retry-after', async () => {
  const ok = await stack.request('GET', '/healthz');
  expect(ok.status).toBe(200);
  expect(ok.headers.get('retry-after')).toBeNull();
  expect(await ok.json()).toEqual({ status: 'ok', redis: 'ok', revocation: 'ok', postgres: 'ok', eviction: NOEVICTION });
  stack.neonProxy.faults.set({ refuse: true });
  ageHealthResult();
  try {
    const down = await stack.request('GET', '/healthz');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe(String(RETRY_AFTER_UNAVAILABLE_SECONDS));
    expect(await down.json()).toEqual({ status: 'degraded', redis: 'ok', revocation: 'ok', postgres: 'down', eviction: NOEVICTION });
  } finally {
    stack.neonProxy.faults.clear();
    ageHealthResult();
  }
});

it('healthz pings a separate revocation store on its own: down there is 503 while the main store is fine', async () => {
  const separate = await startStack({ separateRevocationProxy: true, deps: { clock } });
  try {
    separate.revocationProxy.stats.reset();
    separate.redisProxy.stats.reset();
    const ok = await separate.request('GET', '/healthz');
    expect(await ok.json()).toEqual({ status: 'ok', redis: 'ok', revocation: 'ok', postgres: 'ok', eviction: NOEVICTION });
    // One PING and one INFO each: the stores are configured apart.
    expect([separate.redisProxy.stats.requests, separate.revocationProxy.stats.requests]).toEqual([2, 2]);
    separate.revocationProxy.faults.set({ refuse: true });
    ageHealthResult();
    const down = await separate.request('GET', '/healthz');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe(String(RETRY_AFTER_UNAVAILABLE_SECONDS));
    expect(await down.json()).toEqual({
      status: 'degraded',
      redis: 'ok',
      revocation: 'down',
      postgres: 'ok',
      eviction: { redis: 'noeviction', revocation: 'unknown' },
    });
  } finally {
    await separate.close();
  }
});

it("healthz reports each store's eviction policy without degrading on it, and unknown where INFO is refused", async () => {
  const evicting = await startRedisServer({ maxmemoryPolicy: 'allkeys-lru' });
  const proxy = await startRedisRestProxy({ redisUrl: evicting.url });
  try {
    const revocation = createRedisStore({ url: proxy.url, token: proxy.token });
    // A denylist that may be evicted is keys:audit's finding; health only says so, and stays ok.
    expect(await checkHealth({ ...stack.deps, revocation })).toEqual({
      status: 'ok',
      redis: 'ok',
      revocation: 'ok',
      postgres: 'ok',
      eviction: { redis: 'noeviction', revocation: 'allkeys-lru' },
    });
    // A store that refuses INFO (as a managed one may) still answers PING: ok, policy unknown.
    proxy.faults.set({ failCommands: ['info'] });
    expect((await checkHealth({ ...stack.deps, revocation })).eviction).toEqual({ redis: 'noeviction', revocation: 'unknown' });
  } finally {
    await proxy.close();
    await evicting.stop();
  }
});

it('healthz with one store for both asks it once and reports the same answer twice', async () => {
  stack.redisProxy.stats.reset();
  expect(await (await stack.request('GET', '/healthz')).json()).toMatchObject({ redis: 'ok', revocation: 'ok', eviction: NOEVICTION });
  expect(stack.redisProxy.stats.requests).toBe(2);
  stack.redisProxy.faults.set({ refuse: true });
  ageHealthResult();
  try {
    const down = await stack.request('GET', '/healthz');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'degraded', redis: 'down', revocation: 'down', postgres: 'ok', eviction: UNKNOWN });
  } finally {
    stack.redisProxy.faults.clear();
    ageHealthResult();
  }
});

/** PINGs the real Redis has run (INFO commandstats, read past the proxy). */
async function pingCalls(): Promise<number> {
  const stats = (await stack.redis.info('commandstats')) as string;
  return Number(/cmdstat_ping:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

it("healthz answers a burst from the isolate's result: at most one check per second reaches the stores", async () => {
  ageHealthResult();
  const pingsBefore = await pingCalls();
  stack.redisProxy.stats.reset();
  stack.neonProxy.stats.reset();
  const started = clock.now();
  const statuses: number[] = [];
  // 30 calls, half of them at once: a burst shares one check, and later calls reuse its result.
  statuses.push(...(await Promise.all(Array.from({ length: 15 }, () => stack.request('GET', '/healthz').then((r) => r.status)))));
  for (let i = 0; i < 15; i++) statuses.push((await stack.request('GET', '/healthz')).status);
  const elapsedMs = clock.now() - started;
  expect(statuses).toEqual(Array<number>(30).fill(200));
  // One check per started second at most (the run may cross a second's end on a loaded machine).
  const checks = (await pingCalls()) - pingsBefore;
  expect(checks).toBeGreaterThanOrEqual(1);
  expect(checks).toBeLessThanOrEqual(Math.floor(elapsedMs / HEALTH_MAX_AGE_MS) + 1);
  // Each check: one PING and one INFO (one store for both), one query.
  expect(stack.redisProxy.stats.requests).toBe(2 * checks);
});

it('healthz reports a failure within 1 s of its start: no "ok" older than that', async () => {
  ageHealthResult();
  expect((await stack.request('GET', '/healthz')).status).toBe(200);
  stack.neonProxy.faults.set({ refuse: true });
  const failedAt = clock.now();
  try {
    // Until the first 503: every call that starts more than 1 s after the failure must already say so.
    for (;;) {
      const sentAt = clock.now();
      const status = (await stack.request('GET', '/healthz')).status;
      if (status === 503) break;
      expect(status).toBe(200);
      expect(sentAt - failedAt).toBeLessThanOrEqual(HEALTH_MAX_AGE_MS);
    }
  } finally {
    stack.neonProxy.faults.clear();
    ageHealthResult();
  }
});

it('serves an OpenAPI 3.1 document listing every route the app serves, and nothing else', async () => {
  const response = await stack.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  const doc = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  expect(doc.openapi).toBe('3.1.0');
  const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  );
  // What the router holds: each route's method and full path (its middleware entries repeat it), less the document
  // itself, the console (docs/console.md) and the `use()` middleware (method ALL).
  const served = stack.app.routes
    .filter(({ method, path }) => method !== 'ALL' && path !== '/openapi.json' && !path.startsWith('/console'))
    .map(({ method, path }) => `${method} ${path.replaceAll(/:([^/]+)/g, '{$1}')}`);
  expect(documented.sort()).toEqual([...new Set(served)].sort());
  expect(documented).toEqual(
    expect.arrayContaining([
      'GET /healthz',
      'POST /auth/login',
      'POST /webhooks/syrve/credentials-rotated',
      'GET /orgs/{orgId}/members',
      'PATCH /orgs/{orgId}/members/{userId}',
      'DELETE /orgs/{orgId}/members/{userId}',
      'GET /auth/sessions',
      'DELETE /auth/sessions/{sessionId}',
      'GET /orgs/{orgId}/members/{userId}/sessions',
    ]),
  );
  // The public resolve takes no credentials; the operator routes take the operator's secret, never the tenants' JWT.
  const operation = (path: string, method: string) => doc.paths[path]![method] as { security?: unknown[] };
  expect(operation('/public/tenants/resolve', 'get').security).toBeUndefined();
  expect(operation('/ops/tenants/{orgId}/suspend', 'post').security).toEqual([{ operatorAuth: [] }]);
  // A route an API key reaches names its scope as a second requirement (docs/design/api-keys.md#scopes); one it does not, none.
  expect(operation('/orgs/{orgId}/settings', 'get').security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: ['settings:read'] }]);
  expect(operation('/orgs/{orgId}/branding', 'patch').security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: ['settings:write'] }]);
  expect(operation('/orgs/{orgId}/sign-in-policy', 'put').security).toEqual([{ bearerAuth: [] }]);
});

it('echoes a safe x-correlation-id, stores it in the audit row, and replaces an unsafe one', async () => {
  const org = await stack.seedOrganization();
  const created = await stack.request('POST', `/orgs/${org.organizationId}/invites`, {
    token: org.adminToken,
    body: { email: 'corr@example.test', roleCode: 'Viewer' },
    headers: { 'x-correlation-id': 'req-abc.123' },
  });
  expect(created.headers.get('x-correlation-id')).toBe('req-abc.123');
  const { invite } = (await created.json()) as { invite: { inviteId: string; correlationId: string } };
  expect(invite.correlationId).toBe('req-abc.123');
  const audit = await stack.db.query('SELECT correlation_id FROM audit_events WHERE target_id = $1', [invite.inviteId]);
  expect(audit.rows).toEqual([{ correlation_id: 'req-abc.123' }]);

  const unsafe = await stack.request('GET', '/healthz', { headers: { 'x-correlation-id': 'bad id\twith {braces}' } });
  expect(unsafe.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  // Errors carry the id too, so a failed call can be traced.
  const failed = await stack.request('GET', '/orgs/not-a-uuid/invites', { headers: { 'x-correlation-id': 'trace-me' } });
  expect(failed.headers.get('x-correlation-id')).toBe('trace-me');
});

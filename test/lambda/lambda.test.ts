// The Lambda entry called the way API Gateway v2 (HTTP API, payload 2.0) calls it, configured from process.env.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LambdaContext } from 'hono/aws-lambda';
import pg from 'pg';
import { Redis as IORedis } from 'ioredis';
import { handler, scheduled } from '../../functions/entries/lambda.ts';
import { createKeyspace } from '../../lib/keys/index.ts';
import { uuidv7 } from 'uuidv7';
import { newInvitee, seedOrganization, setPassword } from '../support/fixtures.ts';
import { startLocalServices, type LocalServices } from '../support/local-services.ts';
import { passkeyRoundTrip } from '../support/passkey-round-trip.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';

let services: LocalServices;
let redisServer: RedisServerHandle;
let database: ScratchDatabase;
let db: pg.Client;
const savedEnv = new Map<string, string | undefined>();

beforeAll(async () => {
  // Its own Redis and database: the scheduled function visits every organisation and job it can see, so a shared
  // database would let it work other files' jobs and receipts.
  redisServer = await startRedisServer();
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  services = await startLocalServices({ redisUrl: redisServer.url, databaseUrl: database.url });
  db = new pg.Client({ connectionString: services.databaseUrl });
  await db.connect();
  // The entry reads process.env on its first request and keeps that config for the container's life.
  for (const [name, value] of Object.entries({ ...services.env, CONSOLE_ENABLED: 'true' })) {
    savedEnv.set(name, process.env[name]);
    process.env[name] = value;
  }
});

afterAll(async () => {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await db?.end().catch(() => undefined);
  await services?.close();
  await redisServer?.stop();
  await database?.drop();
});

/** An HTTP API payload 2.0 event as API Gateway sends it for the `$default` route. */
function httpApiEvent(
  method: string,
  rawPath: string,
  options: { rawQueryString?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: options.rawQueryString ?? '',
    headers: {
      ...options.headers,
      accept: 'application/json',
      host: 'abc123.execute-api.eu-central-1.amazonaws.com',
      'user-agent': 'curl/8.5.0',
      'x-amzn-trace-id': 'Root=1-67891233-abcdef012345678912345678',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authentication: null,
      authorizer: {},
      domainName: 'abc123.execute-api.eu-central-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'curl/8.5.0' },
      requestId: 'JKJaXmPLvHcESHA=',
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: options.body ?? null,
    isBase64Encoded: false,
  };
}

const context: LambdaContext = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'runstate-dev-ApiRouteHandler',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:runstate-dev-ApiRouteHandler',
  memoryLimitInMB: '512',
  awsRequestId: '6f1c2a4e-3b2d-4c1e-9a8f-0d2b7c9e1f00',
  logGroupName: '/aws/lambda/runstate-dev-ApiRouteHandler',
  logStreamName: '2026/12/02/[$LATEST]0123456789abcdef0123456789abcdef',
  getRemainingTimeInMillis: () => 20_000,
};

describe('the Lambda handler', () => {
  it('answers GET /healthz with both stores up', async () => {
    const result = await handler(httpApiEvent('GET', '/healthz'), context);
    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toMatch(/^application\/json/);
    expect(result.isBase64Encoded).toBe(false);
    expect(JSON.parse(result.body)).toEqual({
      status: 'ok',
      redis: 'ok',
      revocation: 'ok',
      postgres: 'ok',
      eviction: { redis: 'noeviction', revocation: 'noeviction' },
    });
    // The config came from process.env: the health check really reached Redis through the proxy.
    expect(services.redisProxy.stats.requests).toBeGreaterThan(0);
  });

  it('answers an unknown route with the JSON 404 body', async () => {
    const result = await handler(httpApiEvent('GET', '/no-such-route', { rawQueryString: 'x=1' }), context);
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('passes a JSON body and the bearer token through to the app (create an invite)', async () => {
    const org = await seedOrganization(db);
    const person = newInvitee();
    const event = httpApiEvent('POST', `/orgs/${org.organizationId}/invites`, {
      headers: { authorization: `Bearer ${org.adminToken}`, 'content-type': 'application/json', 'x-correlation-id': 'lambda-test-1' },
      body: JSON.stringify({ email: person.email, roleCode: 'Viewer' }),
    });
    const result = await handler(event, context);
    expect(result.statusCode).toBe(201);
    expect(result.headers['x-correlation-id']).toBe('lambda-test-1');
    const body = JSON.parse(result.body) as { invite: Record<string, string>; token: string };
    expect(body.invite).toMatchObject({
      organizationId: org.organizationId,
      email: person.email,
      roleCode: 'Viewer',
      correlationId: 'lambda-test-1',
    });
    const audit = await db.query('SELECT action FROM audit_events WHERE target_id = $1', [body.invite.inviteId]);
    expect(audit.rows).toEqual([{ action: 'invite.created' }]);
  });

  it("refuses a session signed in to one organisation on another's routes (403), where its user is an admin too", async () => {
    const home = await seedOrganization(db);
    const other = await seedOrganization(db);
    await db.query("INSERT INTO role_assignments (id, user_id, organization_id, role_code) VALUES ($1, $2, $3, 'OrganizationAdmin')", [
      uuidv7(),
      home.adminId,
      other.organizationId,
    ]);
    const password = `pw-${uuidv7()}`;
    await setPassword(db, home.adminId, password);
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ organizationId: home.organizationId, email: home.adminEmail, password });
    const login = await handler(httpApiEvent('POST', '/auth/login', { headers: json, body }), context);
    expect(login.statusCode).toBe(200);
    const { accessToken } = JSON.parse(login.body) as { accessToken: string };
    const authorization = { authorization: `Bearer ${accessToken}` };
    const refused = await handler(httpApiEvent('GET', `/orgs/${other.organizationId}/members`, { headers: authorization }), context);
    expect([refused.statusCode, (JSON.parse(refused.body) as { error: { code: string } }).error.code]).toEqual([403, 'FORBIDDEN']);
    const own = await handler(httpApiEvent('GET', `/orgs/${home.organizationId}/members`, { headers: authorization }), context);
    expect(own.statusCode).toBe(200);
  });

  it('registers a passkey and signs in with it (@simplewebauthn/server on Lambda); a replay is refused', async () => {
    await passkeyRoundTrip(async (method, path, options = {}) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      const body = options.body === undefined ? undefined : JSON.stringify(options.body);
      const answer = await handler(httpApiEvent(method, path, { headers, ...(body !== undefined ? { body } : {}) }), context);
      return { status: answer.statusCode, body: JSON.parse(answer.body || '{}') as Record<string, unknown> };
    }, db);
  });

  it('serves the admin console, and hands its API calls to the app with the cookie as the bearer', async () => {
    const page = await handler(httpApiEvent('GET', '/console'), context);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
    // Over https (API Gateway), the CSRF cookie is Secure, and so a __Host- cookie at Path=/ (lib/console/cookies.ts).
    expect(page.cookies?.[0]).toMatch(/^__Host-rs_console_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const org = await seedOrganization(db);
    const listed = await handler(
      httpApiEvent('GET', `/console/api/orgs/${org.organizationId}/invites`, {
        headers: { cookie: `__Host-rs_console_access=${org.adminToken}` },
      }),
      context,
    );
    expect(listed.statusCode).toBe(200);
    expect(JSON.parse(listed.body)).toEqual({ invites: [], nextCursor: null });
  });
});

/** What EventBridge sends a scheduled rule's target (the shape of `aws.events` "Scheduled Event"). */
function scheduledEvent() {
  return {
    version: '0',
    id: '53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'eu-central-1',
    resources: ['arn:aws:events:eu-central-1:123456789012:rule/runstate-dev-CronRule'],
    detail: {},
  };
}

describe('the Lambda scheduled handler', () => {
  it('runs the scheduled function under the run lock and releases it', async () => {
    const redis = new IORedis(redisServer.url);
    // The entry's config (process.env, read once per container) uses the default prefix; the test env is APP_ENV=test.
    const lockKey = createKeyspace({ prefix: 'mhpay', env: 'test' }).cronRunLock();
    try {
      await redis.set(lockKey, 'c'.repeat(32), 'PX', 30_000);
      expect(await scheduled(scheduledEvent())).toMatchObject({ ran: false, reason: 'locked' });
      expect(await redis.get(lockKey)).toBe('c'.repeat(32));

      await redis.del(lockKey);
      services.redisProxy.stats.reset();
      const run = await scheduled(scheduledEvent());
      expect(run).toMatchObject({ ran: true, failed: [], notStarted: [] });
      // Taken and released through the REST proxy, as the deployed function reaches Upstash.
      expect(services.redisProxy.stats.commands).toBeGreaterThanOrEqual(2);
      expect(await redis.exists(lockKey)).toBe(0);
    } finally {
      await redis.quit();
    }
  });
});

// Health, the OpenAPI document and correlation ids, as a client sees them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

it('healthz is 200 when both stores answer and 503 naming the one that is down', async () => {
  const ok = await stack.request('GET', '/healthz');
  expect(ok.status).toBe(200);
  expect(await ok.json()).toEqual({ status: 'ok', redis: 'ok', postgres: 'ok' });
  stack.neonProxy.faults.set({ refuse: true });
  try {
    const down = await stack.request('GET', '/healthz');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'degraded', redis: 'ok', postgres: 'down' });
  } finally {
    stack.neonProxy.faults.clear();
  }
});

it('serves an OpenAPI 3.1 document listing every route', async () => {
  const response = await stack.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  const doc = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  expect(doc.openapi).toBe('3.1.0');
  expect(Object.keys(doc.paths).sort()).toEqual(
    [
      '/.well-known/jwks.json',
      '/auth/handoff',
      '/auth/handoff/exchange',
      '/auth/login',
      '/auth/logout',
      '/auth/oidc/{provider}/callback',
      '/auth/oidc/{provider}/start',
      '/auth/refresh',
      '/healthz',
      '/invites/accept',
      '/orgs/{orgId}/audit/exports',
      '/orgs/{orgId}/audit/exports/{jobId}',
      '/orgs/{orgId}/audit/exports/{jobId}/file',
      '/orgs/{orgId}/invites',
      '/orgs/{orgId}/invites/{inviteId}',
      '/orgs/{orgId}/syrve/connections',
      '/orgs/{orgId}/syrve/connections/{connectionId}',
      '/orgs/{orgId}/syrve/connections/{connectionId}/enable',
      '/orgs/{orgId}/syrve/connections/{connectionId}/stores',
      '/orgs/{orgId}/syrve/connections/{connectionId}/test',
      '/webhooks/syrve/credentials-rotated',
    ].sort(),
  );
  expect(Object.keys(doc.paths['/webhooks/syrve/credentials-rotated']!)).toEqual(['post']);
  expect(Object.keys(doc.paths['/orgs/{orgId}/invites']!).sort()).toEqual(['get', 'post']);
  expect(Object.keys(doc.paths['/orgs/{orgId}/audit/exports/{jobId}']!).sort()).toEqual(['delete', 'get']);
  expect(Object.keys(doc.paths['/auth/oidc/{provider}/start']!)).toEqual(['get']);
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

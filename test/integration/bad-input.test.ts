// Bad input is a 400 VALIDATION_FAILED with the error body of docs/api.md — never a 500, never a key touched.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStack, type TestStack } from '../support/stack.ts';
import { withoutLimiterKeys } from '../support/limiter-keys.ts';

let stack: TestStack;
let org: Awaited<ReturnType<TestStack['seedOrganization']>>;
beforeAll(async () => {
  stack = await startStack();
  org = await stack.seedOrganization();
});
afterAll(async () => stack?.close());

const valid = { email: 'someone@example.test', roleCode: 'Viewer' };
/** A list cursor is base64url text; these build hostile ones. */
const b64 = (text: string) => Buffer.from(text).toString('base64url');

it.each([
  ['non-UUID organisation id', 'POST', '/orgs/not-a-uuid/invites', { body: valid }],
  ['injection attempt in the org id', 'GET', '/orgs/x}:*:{y/invites', {}],
  ['non-UUID invite id', 'DELETE', '/orgs/{org}/invites/123', {}],
  ['unknown field', 'POST', '/orgs/{org}/invites', { body: { ...valid, isAdmin: true } }],
  ['unknown role code', 'POST', '/orgs/{org}/invites', { body: { ...valid, roleCode: 'SuperUser' } }],
  ['malformed email', 'POST', '/orgs/{org}/invites', { body: { ...valid, email: 'not-an-email' } }],
  ['missing email', 'POST', '/orgs/{org}/invites', { body: { roleCode: 'Viewer' } }],
  ['non-UUID location', 'POST', '/orgs/{org}/invites', { body: { ...valid, locationId: 'outlet-1' } }],
  ['location of no such outlet', 'POST', '/orgs/{org}/invites', { body: { ...valid, locationId: '0192f0c1-0000-7000-8000-000000000000' } }],
  ['malformed JSON', 'POST', '/orgs/{org}/invites', { rawBody: '{"email": ', headers: { 'content-type': 'application/json' } }],
  ['JSON that is not an object', 'POST', '/orgs/{org}/invites', { rawBody: '[1,2,3]', headers: { 'content-type': 'application/json' } }],
  [
    'oversized body',
    'POST',
    '/orgs/{org}/invites',
    { rawBody: JSON.stringify({ ...valid, pad: 'x'.repeat(64 * 1024) }), headers: { 'content-type': 'application/json' } },
  ],
  ['no body at all', 'POST', '/orgs/{org}/invites', {}],
  ['bad email filter', 'GET', '/orgs/{org}/invites?email=nope', {}],
  ['unknown query parameter', 'GET', '/orgs/{org}/invites?page=5', {}],
  ['list limit 0', 'GET', '/orgs/{org}/invites?limit=0', {}],
  ['list limit over 500', 'GET', '/orgs/{org}/invites?limit=501', {}],
  ['negative list limit', 'GET', '/orgs/{org}/invites?limit=-1', {}],
  ['fractional list limit', 'GET', '/orgs/{org}/invites?limit=1.5', {}],
  ['list limit that is not a number', 'GET', '/orgs/{org}/invites?limit=ten', {}],
  ['empty list limit', 'GET', '/orgs/{org}/invites?limit=', {}],
  ['empty cursor', 'GET', '/orgs/{org}/invites?cursor=', {}],
  ['cursor outside base64url', 'GET', '/orgs/{org}/invites?cursor=a%2Bb%2Fc%3D', {}],
  ['cursor of the wrong length for base64', 'GET', '/orgs/{org}/invites?cursor=abcde', {}],
  ['cursor that decodes to no position', 'GET', `/orgs/{org}/invites?cursor=${b64('hello')}`, {}],
  ['cursor with a key injection', 'GET', `/orgs/{org}/invites?cursor=${b64('1.}:*:{x')}`, {}],
  ['cursor with a zero score', 'GET', `/orgs/{org}/invites?cursor=${b64(`0.${'a'.repeat(32)}`)}`, {}],
  ['cursor with a huge score', 'GET', `/orgs/{org}/invites?cursor=${b64(`1${'0'.repeat(20)}.${'a'.repeat(32)}`)}`, {}],
  ['cursor with an upper-case member', 'GET', `/orgs/{org}/invites?cursor=${b64(`1800000000.${'A'.repeat(32)}`)}`, {}],
  ['cursor that is not UTF-8', 'GET', '/orgs/{org}/invites?cursor=__8', {}],
  ['oversized cursor', 'GET', `/orgs/{org}/invites?cursor=${'A'.repeat(4_000)}`, {}],
  ['non-UUID connection id', 'GET', '/orgs/{org}/syrve/connections/abc/stores', {}],
  [
    'connection with an unknown field',
    'POST',
    '/orgs/{org}/syrve/connections',
    { body: { ...{ name: 'RMS', baseUrl: 'http://127.0.0.1:9', login: 'manager', password: 'pw' }, enabled: false } },
  ],
  [
    'connection password over 256 characters',
    'POST',
    '/orgs/{org}/syrve/connections',
    { body: { ...{ name: 'RMS', baseUrl: 'http://127.0.0.1:9', login: 'manager', password: 'pw' }, password: 'p'.repeat(257) } },
  ],
  [
    'connection name with a control character',
    'POST',
    '/orgs/{org}/syrve/connections',
    { body: { ...{ name: 'RMS', baseUrl: 'http://127.0.0.1:9', login: 'manager', password: 'pw' }, name: 'a\nb' } },
  ],
  [
    'connection base URL that is no URL',
    'POST',
    '/orgs/{org}/syrve/connections',
    { body: { ...{ name: 'RMS', baseUrl: 'http://127.0.0.1:9', login: 'manager', password: 'pw' }, baseUrl: 'not a url' } },
  ],
  [
    'connection base URL with a query',
    'POST',
    '/orgs/{org}/syrve/connections',
    { body: { ...{ name: 'RMS', baseUrl: 'http://127.0.0.1:9', login: 'manager', password: 'pw' }, baseUrl: 'http://127.0.0.1:9/?key=x' } },
  ],
  [
    'connection without a password',
    'POST',
    '/orgs/{org}/syrve/connections',
    { body: { name: 'RMS', baseUrl: 'http://127.0.0.1:9', login: 'm' } },
  ],
  ['accept with unknown fields', 'POST', '/invites/accept', { body: { token: 'x', extra: 1 } }],
  ['accept with a number token', 'POST', '/invites/accept', { body: { token: 42 } }],
  ['accept with an oversized token', 'POST', '/invites/accept', { body: { token: 'rsi_' + 'a'.repeat(10_000) } }],
] as const)('%s → 400 VALIDATION_FAILED', async (_name, method, rawPath, options) => {
  const path = rawPath.replace('{org}', org.organizationId);
  const response = await stack.request(method, path, { token: org.adminToken, ...options });
  expect(response.status).toBe(400);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body).toEqual({ error: { code: 'VALIDATION_FAILED', message: expect.any(String) } });
  expect(body.error.message).not.toMatch(/\n\s+at /); // no stack trace
  // Other files share this Redis, so look at this organisation's keys (it never gets a valid invite here).
  expect(withoutLimiterKeys(await stack.redis.keys(`*${org.organizationId}*`))).toEqual([]);
});

it('an unknown route is a 404 in the same error shape', async () => {
  const response = await stack.request('GET', '/nope');
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
});

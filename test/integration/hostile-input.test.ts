// Hostile input on every route of the OpenAPI document: whatever arrives, the answer is never a 5xx while the stores
// are up, every error has the documented body, and no submitted value (a canary) is echoed back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { newOperator } from '../support/operators.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let adminToken: string;
// An operator is configured, so the /ops routes check their input rather than answer 503 NOT_CONFIGURED.
const operator = newOperator('fuzz');
let routes: Array<{ method: string; path: string }>;

beforeAll(async () => {
  stack = await startStack({ env: { SSO_HANDOFF_AUDIENCES: 'console', OPERATOR_TOKEN_HASHES: operator.entry } });
  adminToken = (await stack.seedOrganization()).adminToken;
  const doc = (await (await stack.request('GET', '/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
  );
});
afterAll(async () => stack?.close());

const CANARY = `canary-${uuidv7()}`;

/** Path parameter values an attacker would try; {param} placeholders get each in turn. */
const HOSTILE_IDS = ['not-a-uuid', '..%2F..%2Fetc', `x}:*:{${CANARY}`, '%00', 'A'.repeat(300), '00000000-0000-0000-0000-000000000000'];

const HOSTILE_BODIES: Array<[string, string]> = [
  ['empty', ''],
  ['not JSON', `{"a": ${CANARY}`],
  ['an array', `[${JSON.stringify(CANARY)}]`],
  ['a string', JSON.stringify(CANARY)],
  ['null', 'null'],
  ['prototype keys', JSON.stringify({ __proto__: { admin: true }, constructor: { prototype: CANARY } })],
  ['wrong types', JSON.stringify({ email: 12, password: [CANARY], token: { $ne: null }, organizationId: true, code: Number.MAX_VALUE })],
  ['huge strings', JSON.stringify({ email: `${'a'.repeat(5000)}@x.test`, token: CANARY.repeat(100), password: CANARY.repeat(50) })],
  ['unicode', JSON.stringify({ email: `${CANARY}\u0000@\u202e.test`, slug: '\ud800', name: '𝕏'.repeat(200) })],
];

function fill(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, value);
}

describe('every OpenAPI route', () => {
  it('answers hostile path ids, bodies and queries with a 4xx error body, never a 5xx, never echoing a canary', async () => {
    const failures: string[] = [];
    for (const { method, path } of routes) {
      const targets = path.includes('{') ? HOSTILE_IDS.map((id) => fill(path, id)) : [path];
      for (const target of targets) {
        for (const [label, rawBody] of method === 'GET' || method === 'DELETE' ? [['none', ''] as [string, string]] : HOSTILE_BODIES) {
          for (const token of [adminToken, operator.secret, undefined, 'not.a.jwt']) {
            const query = `?${new URLSearchParams({ x: CANARY, email: CANARY, slug: CANARY, state: CANARY, code: CANARY })}`;
            const response = await stack.request(method, `${target}${method === 'GET' ? query : ''}`, {
              ...(token !== undefined ? { token } : {}),
              ...(rawBody !== '' ? { rawBody, headers: { 'content-type': 'application/json' } } : {}),
            });
            const text = await response.text();
            const where = `${method} ${target} body=${label} token=${token === undefined ? 'none' : token === adminToken ? 'admin' : token === operator.secret ? 'operator' : 'bad'}`;
            if (response.status >= 500) failures.push(`${where}: ${response.status} ${text.slice(0, 200)}`);
            if (text.includes(CANARY)) failures.push(`${where}: echoed the canary`);
            const type = response.headers.get('content-type') ?? '';
            if (response.status >= 400 && type.includes('json')) {
              const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
              if (typeof body.error?.code !== 'string' || typeof body.error.message !== 'string')
                failures.push(`${where}: not the error body`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    // The sweep really covered the document (a positive control against an empty route list).
    expect(routes.length).toBeGreaterThan(30);
  }, 120_000);
});

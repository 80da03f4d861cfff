// The OpenAPI document's error answers held to lib/http/error-catalog.ts, without services: each status of each route
// names only codes of that status, the codes every route can give are there, every code of the API is documented by
// some route, and docs/api.md's error table lists the catalog.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.ts';
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode } from '../../lib/http/error-catalog.ts';
import { offlineDeps } from '../support/offline-deps.ts';

interface ErrorAnswer {
  description: string;
  headers?: Record<string, unknown>;
  content?: { 'application/json'?: { schema?: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } } };
}
interface Operation {
  security?: Array<Record<string, unknown>>;
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, ErrorAnswer>;
}

const deps = offlineDeps();
const document = (await (await createApp(() => deps).request('/openapi.json')).json()) as {
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
);

/** The codes an answer documents in its `error.code` enum; undefined for an answer with a body of its own (health's 503). */
const codesOf = (answer: ErrorAnswer): string[] | undefined =>
  answer.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum;

/** Every code each operation documents, by status. */
const documented = operations.map(({ name, operation }) => ({
  name,
  operation,
  byStatus: Object.entries(operation.responses).flatMap(([status, answer]) => {
    const codes = codesOf(answer);
    return Number(status) >= 400 && codes !== undefined ? [{ status: Number(status), answer, codes }] : [];
  }),
}));
const codesOfOperation = (byStatus: Array<{ codes: string[] }>) => new Set(byStatus.flatMap(({ codes }) => codes));

describe('every route of /openapi.json', () => {
  it('is there (the walk below has something to walk)', () => {
    expect(operations.length).toBeGreaterThanOrEqual(40);
  });

  it.each(documented)(
    '$name: each error status lists only catalog codes of that status, in its enum and its description',
    ({ byStatus }) => {
      for (const { status, answer, codes } of byStatus) {
        expect(codes.length, String(status)).toBeGreaterThan(0);
        for (const code of codes) {
          expect(ERROR_CODES, code).toContain(code);
          expect(ERROR_CATALOG[code as ErrorCode].status, code).toBe(status);
        }
        // The description names exactly the enum's codes, no more.
        expect(answer.description.match(/\b[A-Z][A-Z_]+[A-Z]\b/g), String(status)).toEqual(codes);
        if (status === 429 || status === 503) expect(answer.headers?.['retry-after'], String(status)).toBeDefined();
      }
    },
  );

  it.each(documented)('$name: documents the codes every route of its kind can give', ({ operation, byStatus }) => {
    const codes = codesOfOperation(byStatus);
    expect(codes).toContain('INTERNAL_ERROR');
    if (operation.parameters !== undefined || operation.requestBody !== undefined) expect(codes).toContain('VALIDATION_FAILED');
    const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
    if (schemes.includes('bearerAuth')) {
      for (const code of ['UNAUTHENTICATED', 'TOKEN_REVOKED', 'REVOCATION_UNAVAILABLE']) expect(codes).toContain(code);
    }
    if (schemes.includes('operatorAuth')) {
      for (const code of ['UNAUTHENTICATED', 'NOT_CONFIGURED']) expect(codes).toContain(code);
      expect(codes).not.toContain('TOKEN_REVOKED');
    }
    if (schemes.length === 0) expect(codes).not.toContain('REVOCATION_UNAVAILABLE');
  });
});

it("documents every code of the catalog on some route, except the console's own (not in the document)", () => {
  const everywhere = new Set(documented.flatMap(({ byStatus }) => [...codesOfOperation(byStatus)]));
  const consoleOnly = ERROR_CODES.filter((code) => 'consoleOnly' in ERROR_CATALOG[code]);
  expect(consoleOnly).toEqual(['CSRF_REFUSED']);
  expect([...everywhere].sort()).toEqual(ERROR_CODES.filter((code) => !consoleOnly.includes(code)).sort());
});

it("docs/api.md's error table names every code of the catalog with the catalog's status, and nothing else", () => {
  const text = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('\n## Errors'), text.indexOf('\n## Routes'));
  const rows = [...section.matchAll(/^\| (\d{3}) +\| `([A-Z_]+)` +\|/gm)].map(([, status, code]) => [code!, Number(status)] as const);
  expect(rows.length).toBeGreaterThan(0);
  for (const [code, status] of rows) expect([code, ERROR_CATALOG[code as ErrorCode]?.status]).toEqual([code, status]);
  expect([...new Set(rows.map(([code]) => code))].sort()).toEqual([...ERROR_CODES].sort());
});

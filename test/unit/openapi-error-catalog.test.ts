// The OpenAPI document's error answers held to lib/http/error-catalog.ts, without services: each status of each route
// names only codes of that status, the codes every route can give are there, every code of the API is documented by
// some route, and docs/api.md's error table lists the catalog.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.ts';
import { AppError, errors } from '../../lib/http/app-error.ts';
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

it("documents every code of the catalog on some route, except the console's own and the Node server's (not in the document)", () => {
  const everywhere = new Set(documented.flatMap(({ byStatus }) => [...codesOfOperation(byStatus)]));
  const consoleOnly = ERROR_CODES.filter((code) => 'consoleOnly' in ERROR_CATALOG[code]);
  const nodeServerOnly = ERROR_CODES.filter((code) => 'nodeServerOnly' in ERROR_CATALOG[code]);
  expect(consoleOnly).toEqual(['CSRF_REFUSED']);
  expect(nodeServerOnly).toEqual(['REQUEST_TIMEOUT', 'HEADERS_TOO_LARGE']);
  const undocumented = [...consoleOnly, ...nodeServerOnly];
  expect([...everywhere].sort()).toEqual(ERROR_CODES.filter((code) => !undocumented.includes(code)).sort());
});

/** docs/api.md's error table: one [code, status] per row. */
function apiTableRows(): Array<readonly [string, number]> {
  const text = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('\n## Errors'), text.indexOf('\n## Routes'));
  return [...section.matchAll(/^\| (\d{3}) +\| `([A-Z_]+)` +\|/gm)].map(([, status, code]) => [code!, Number(status)] as const);
}

it("answers every code with exactly one status, the catalog's: its factory, every route of the document, every row of docs/api.md", () => {
  const seen = new Map<string, Set<number>>(ERROR_CODES.map((code) => [code, new Set<number>()]));
  for (const code of ERROR_CODES) {
    // Any argument will do: the factory's status never depends on it (lib/http/app-error.ts).
    const made = (errors[code] as (...args: unknown[]) => AppError)(1);
    expect(made).toBeInstanceOf(AppError);
    seen.get(code)!.add(made.status);
  }
  for (const { byStatus } of documented) for (const { status, codes } of byStatus) for (const code of codes) seen.get(code)?.add(status);
  for (const [code, status] of apiTableRows()) seen.get(code)?.add(status);
  for (const [code, statuses] of seen) expect([code, [...statuses]]).toEqual([code, [ERROR_CATALOG[code as ErrorCode].status]]);
  // Nothing else has a status of its own: a code of the document or the table is a catalog code.
  expect(documented.flatMap(({ byStatus }) => byStatus.flatMap(({ codes }) => codes)).filter((code) => !seen.has(code))).toEqual([]);
  expect(apiTableRows().filter(([code]) => !seen.has(code))).toEqual([]);
});

it("docs/api.md's error table names every code of the catalog with the catalog's status, and nothing else", () => {
  const rows = apiTableRows();
  expect(rows.length).toBeGreaterThan(0);
  for (const [code, status] of rows) expect([code, ERROR_CATALOG[code as ErrorCode]?.status]).toEqual([code, status]);
  expect([...new Set(rows.map(([code]) => code))].sort()).toEqual([...ERROR_CODES].sort());
});

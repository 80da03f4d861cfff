// A route's error answers for the OpenAPI document, from the codes it can give: one response per status, whose
// description and `error.code` enum name exactly those codes (lib/http/error-catalog.ts).
import type { RouteConfig } from '@hono/zod-openapi';
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode, type ErrorStatus } from './error-catalog.ts';
import { jsonContent } from './route-schemas.ts';

/** What a retry-after header means on each status that carries one (lib/http/error-handler.ts sets it on every 503). */
const RETRY_AFTER: Partial<Record<ErrorStatus, string>> = {
  429: 'Seconds until the throttle lets this caller try again',
  503: 'Seconds to wait before trying again',
};

/** On a 429 of the API rate limits (docs/api.md#authentication); a throttle's 429 carries retry-after alone. */
const RATE_LIMIT_FIELDS = {
  'ratelimit-policy': {
    description: 'The API rate limits counted: `"user-route";q=100;w=60, "user";q=1000;w=60, "tenant";q=10000;w=60`',
    schema: { type: 'string' as const },
  },
  ratelimit: {
    description: 'What each has left and in how many seconds it resets: `"user-route";r=0;t=12, …`',
    schema: { type: 'string' as const },
  },
};

/**
 * The answers of the `declared` codes (the route's own and its guard's), with those any route gives besides: VALIDATION_FAILED where
 * it takes input, INTERNAL_ERROR everywhere (lib/http/error-handler.ts).
 */
export function errorAnswers(route: Pick<RouteConfig, 'request'>, declared: readonly ErrorCode[]) {
  const codes = new Set<ErrorCode>([...declared, 'INTERNAL_ERROR']);
  const input = route.request;
  if (input?.params !== undefined || input?.query !== undefined || input?.headers !== undefined || input?.body !== undefined) {
    codes.add('VALIDATION_FAILED');
  }
  const byStatus = new Map<ErrorStatus, ErrorCode[]>();
  // In the catalog's order, so every description lists its codes alike.
  for (const code of ERROR_CODES.filter((known) => codes.has(known))) {
    const { status } = ERROR_CATALOG[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]) => {
      const retryAfter = RETRY_AFTER[status];
      const schema = errorBodySchema(statusCodes);
      return [
        status,
        {
          description: describe(statusCodes),
          ...(retryAfter !== undefined
            ? {
                headers: {
                  'retry-after': { description: retryAfter, schema: { type: 'integer' as const, minimum: 1 } },
                  ...(status === 429 ? RATE_LIMIT_FIELDS : {}),
                },
              }
            : {}),
          ...jsonContent(schema),
        },
      ];
    }),
  );
}

/**
 * The error body's JSON Schema, as the generator would write it for a zod object. Written out, not built with zod: these
 * answers only document (nothing parses them), and some 300 zod schemas built at import were a large share of a cold
 * start's CPU (`npm run size`).
 */
function errorBodySchema(codes: readonly ErrorCode[]) {
  return {
    type: 'object' as const,
    properties: {
      error: {
        type: 'object' as const,
        properties: { code: { type: 'string' as const, enum: [...codes] }, message: { type: 'string' as const } },
        required: ['code', 'message'],
      },
    },
    required: ['error'],
  };
}

/** `A`, `A or B`, `A, B or C`. */
function describe(codes: readonly ErrorCode[]): string {
  return codes.length === 1 ? codes[0]! : `${codes.slice(0, -1).join(', ')} or ${codes.at(-1)!}`;
}

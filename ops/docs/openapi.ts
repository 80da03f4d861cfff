// The OpenAPI document exactly as GET /openapi.json serves it, generated offline: the route counts and the document's
// size the docs quote come from here (ops/docs/figures.ts).
import { createApp } from '../../functions/app.ts';
import { OPENAPI_PATH } from '../../functions/openapi-document.ts';
import { loadConfig } from '../../lib/config/index.ts';
import { createDeps } from '../../lib/create-deps.ts';

type Operations = Record<string, { security?: Array<Record<string, unknown>> }>;

/**
 * Serving the document builds no store client's connection and sends nothing, so these placeholders are never used to
 * reach anything; they only satisfy the configuration's schema.
 */
const PLACEHOLDER_ENV = {
  APP_ENV: 'test',
  AUTH_JWT_SECRET: 'docs-generate-placeholder-0123456789abcdef',
  INDEX_HASH_KEY: 'docs-generate-placeholder-0123456789abcdef',
  UPSTASH_REDIS_REST_URL: 'https://main.upstash.example',
  UPSTASH_REDIS_REST_TOKEN: 'placeholder',
  DATABASE_URL: 'postgres://app:placeholder@ep-x.neon.example/app',
  PASSKEY_RP_ID: 'runstate.example',
  PASSKEY_ORIGINS: 'https://app.runstate.example',
};

/** The served text (the app mounts every function for it, as on a first request for the document). */
export async function servedOpenApiText(): Promise<string> {
  const deps = createDeps(loadConfig(PLACEHOLDER_ENV));
  const response = await createApp(() => deps).request(OPENAPI_PATH);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${OPENAPI_PATH} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

export interface RouteCounts {
  /** Every method and path the document names. */
  served: number;
  /** Those taking a person's bearer token (an API key may be accepted beside it): the revocation check guards them. */
  bearer: number;
  /** The /ops routes, taking an operator's secret. */
  operator: number;
  /** Those with no credential at all. */
  open: number;
}

export function routeCounts(documentText: string): RouteCounts {
  const document = JSON.parse(documentText) as { paths: Record<string, Operations> };
  const counts: RouteCounts = { served: 0, bearer: 0, operator: 0, open: 0 };
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      counts.served += 1;
      if (schemes.includes('bearerAuth')) counts.bearer += 1;
      else if (schemes.includes('operatorAuth')) counts.operator += 1;
      else if (schemes.length === 0) counts.open += 1;
    }
  }
  return counts;
}

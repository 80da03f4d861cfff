// The shapes route definitions share: JSON content, and ids in paths and bodies (UUIDs of either case, lowercased here).
import * as z from 'zod';

/** A JSON response's (or request body's) content, as OpenAPI and @hono/zod-openapi spell it. */
export const jsonContent = <T>(schema: T) => ({ content: { 'application/json': { schema } } });

/** A JSON request body; every body of this API is required. */
export const jsonBody = <T>(schema: T) => ({ ...jsonContent(schema), required: true as const });

/**
 * A UUID in either case, lowercased by the schema (still documented as a uuid string), so a handler, a key and a
 * PostgreSQL parameter only ever see one spelling of an id (docs/api.md#conventions).
 */
export const uuidId = z.uuid().toLowerCase();

/** The path of every route under /orgs/{orgId}. */
export const orgParams = z.strictObject({ orgId: uuidId });

/** A list's `?limit=`: a whole number from 1 to the page's largest, the page's default when absent. */
export const pageLimit = (page: { readonly default: number; readonly max: number }) =>
  z.coerce.number().int().min(1).max(page.max).default(page.default);

/**
 * An email address as a person types it: trimmed and lowercased before it is checked, so `" Admin@Example.com"` is
 * the address `admin@example.com` (lib/keys/hash-segment.ts's `normalizeEmail`, the one spelling keys and rows hold)
 * rather than a 400. Checks, not a pipe, so the document still says `format: email`.
 */
export const emailInput = z
  .string()
  .check(z.trim(), z.toLowerCase(), z.email(), z.maxLength(254))
  .describe('An email address; surrounding spaces are removed and it is lowercased before it is checked.');

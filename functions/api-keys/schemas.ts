// Request and response schemas of the API key routes.
import * as z from 'zod';
import { API_KEY_MAX_OVERLAP_SECONDS, apiKeySchema, apiKeyScopesSchema } from '../../lib/auth/api-keys/index.ts';
import { pageLimit, uuidId } from '../../lib/http/route-schemas.ts';

export const apiKeyParams = z.strictObject({ orgId: uuidId, apiKeyId: uuidId });

/** Page size of the key list: the default and the most one call may ask for (docs/api.md, API keys). */
const API_KEY_PAGE = { default: 50, max: 100 } as const;

export const listApiKeysQuery = z.strictObject({
  limit: pageLimit(API_KEY_PAGE),
  cursor: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional()
    .describe("The previous page's nextCursor, as it was given."),
});

const name = z.string().trim().min(1).max(100);

export const createApiKeyBody = z.strictObject({
  name,
  scopes: apiKeyScopesSchema,
  // An offset can carry a 9999 date past the year 10000 in UTC, which toISOString writes as +010000-… and PostgreSQL refuses.
  expiresAt: z.iso
    .datetime({ offset: true })
    .refine((at) => Date.parse(at) < Date.UTC(10_000, 0, 1), 'before the year 10000 in UTC')
    .optional()
    .describe('When the key stops working; absent: never. Must be in the future.'),
  rateLimitPerMinute: z.int().min(1).max(100_000).optional().describe("The key's own limit per minute; absent: the default."),
});

export const updateApiKeyBody = z
  .strictObject({ name: name.optional(), scopes: apiKeyScopesSchema.optional() })
  .refine((body) => body.name !== undefined || body.scopes !== undefined, 'name or scopes: at least one');

export const rollApiKeyBody = z.strictObject({
  overlapSeconds: z.int().min(0).max(API_KEY_MAX_OVERLAP_SECONDS).describe('How long the old key keeps working; 0 ends it now.'),
});

export const apiKeyResponse = z.object({ apiKey: apiKeySchema });

export const apiKeyWithSecretResponse = z.object({
  apiKey: apiKeySchema,
  key: z.string().describe('The key itself: shown this once, stored nowhere (only its keyed hash is).'),
});

export const apiKeyListResponse = z.object({
  apiKeys: z.array(apiKeySchema).describe('The keys not revoked, in the order they were made.'),
  nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next page; null when this page is the last.'),
});

// The read-through entry of an API key's record, keyed by the key's keyed hash under the organisation's hash tag, so the
// check, the per-key limit and the organisation's rate-limit counters are one script on one slot.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { digest } from '../id-segments.ts';
import { json } from '../key-values.ts';
import { orgScope } from '../scopes.ts';

/** A key found active: how long its record may be served before PostgreSQL is asked again (a change deletes it sooner). */
export const API_KEY_ENTRY_TTL_SECONDS = 300;
/** A key unknown here or revoked: short, so a flood of made-up keys parks little (docs/design/api-keys.md#cache). */
export const API_KEY_REFUSED_ENTRY_TTL_SECONDS = 60;

/**
 * What the check needs of a key, never the key or its hash. `seq` is the organisation's `api_key_seq` read in the same
 * statement as the row (migrations/0030_api_keys.sql): an entry older than the one an isolate last read from PostgreSQL
 * is not used (docs/design/api-keys.md#revocation).
 */
export const apiKeyEntrySchema = z.lazy(() =>
  z.discriminatedUnion('state', [
    z.strictObject({
      state: z.literal('active'),
      apiKeyId: z.uuid(),
      organizationId: z.uuid(),
      createdBy: z.uuid(),
      scopes: z
        .array(z.string().regex(/^[a-z]+:(read|write)$/))
        .min(1)
        .max(32),
      expiresAtMs: z.int().nonnegative().nullable(),
      rateLimitPerMinute: z.int().min(1).max(100_000).nullable(),
      seq: z.int().nonnegative(),
    }),
    z.strictObject({ state: z.literal('refused'), seq: z.int().nonnegative() }),
  ]),
);
export type ApiKeyEntry = z.infer<typeof apiKeyEntrySchema>;

export const apiKeyKeys = {
  apiKeyEntry: defineKey({
    scope: orgScope,
    domain: 'auth',
    purpose: 'api-key',
    id: [digest('keyHash', 'HMAC(INDEX_HASH_KEY, api key)')],
    // API_KEY_ENTRY_TTL_SECONDS for an active key, API_KEY_REFUSED_ENTRY_TTL_SECONDS for one unknown or revoked.
    ttl: { maxSeconds: API_KEY_ENTRY_TTL_SECONDS },
    value: json(apiKeyEntrySchema),
  }),
};

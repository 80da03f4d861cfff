// An API key as its routes show it (never the key, never its hash), and the SQL that reads one from its row.
import * as z from 'zod';
import { isoUtc } from '../members/member.ts';
import { API_KEY_SCOPES } from './scopes.ts';

export const apiKeySchema = z.object({
  apiKeyId: z.uuid(),
  name: z.string(),
  /** The key's first characters (`rsk_` and 8 more), to tell keys apart. */
  prefix: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)).describe('Sorted'),
  createdAt: z.iso.datetime(),
  /** Null: it does not expire. After a roll, the end of the overlap. */
  expiresAt: z.iso.datetime().nullable(),
  /** To the minute at best: written at most once a minute per key. Null: never used. */
  lastUsedAt: z.iso.datetime().nullable(),
  /** The user who made it. */
  createdBy: z.uuid(),
  /** Null: the default per-key limit. */
  rateLimitPerMinute: z.int().nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at_iso: string;
  expires_at_iso: string | null;
  last_used_at_iso: string | null;
  created_by: string;
  rate_limit_per_minute: number | null;
  /** To the microsecond, for the list's cursor. */
  created_at_exact: string;
}

/** The columns of ApiKeyRow, read from the table (or a CTE of its rows) named `k`. */
export const API_KEY_COLUMNS = `k.id, k.name, k.prefix, k.scopes, k.created_by, k.rate_limit_per_minute,
  ${isoUtc('k.created_at', 'MS')} AS created_at_iso, ${isoUtc('k.created_at', 'US')} AS created_at_exact,
  ${isoUtc('k.expires_at', 'MS')} AS expires_at_iso, ${isoUtc('k.last_used_at', 'MS')} AS last_used_at_iso`;

export function apiKeyFromRow(row: ApiKeyRow): ApiKey {
  return apiKeySchema.parse({
    apiKeyId: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    createdAt: row.created_at_iso,
    expiresAt: row.expires_at_iso,
    lastUsedAt: row.last_used_at_iso,
    createdBy: row.created_by,
    rateLimitPerMinute: row.rate_limit_per_minute,
  });
}

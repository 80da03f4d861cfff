// The scopes an API key may hold: each names what a group of /orgs/{orgId}/… routes needs (docs/design/api-keys.md#scopes).
import * as z from 'zod';

export const API_KEY_SCOPES = [
  'members:read',
  'members:write',
  'sessions:read',
  'sessions:write',
  'invites:read',
  'invites:write',
  'syrve:read',
  'syrve:write',
  'exports:read',
  'exports:write',
  'settings:read',
  'settings:write',
  'webhooks:read',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** A key's scopes as a request names them: at least one, each once; stored sorted, so equal sets are equal arrays. */
export const apiKeyScopesSchema = z
  .array(z.enum(API_KEY_SCOPES))
  .min(1)
  .max(API_KEY_SCOPES.length)
  .refine((scopes) => new Set(scopes).size === scopes.length, 'each scope at most once')
  .transform((scopes) => [...scopes].sort());

// A webhook endpoint as the routes show it, read from its row; the sealed secrets never leave this file's row type.
import * as z from 'zod';
import { EVENT_TYPES } from './event-types.ts';

export const endpointSchema = z.object({
  endpointId: z.uuid(),
  organizationId: z.uuid(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.enum(EVENT_TYPES)),
  state: z.enum(['enabled', 'disabled']),
  /** 'admin': disabled by an admin; 'failing': by the delivery engine after days of failures; null while enabled. */
  disabledReason: z.enum(['admin', 'failing']).nullable(),
  /** The first failed delivery since the last success (ISO 8601); null while deliveries succeed. */
  failingSince: z.iso.datetime().nullable(),
  /** Raised by each rotation; the first secret is version 1. */
  secretVersion: z.number().int().min(1),
  /** Until when the secret before the last rotation still signs beside the current one; null when none does. */
  previousSecretUntil: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export type Endpoint = z.infer<typeof endpointSchema>;

/** The most endpoints one organisation may have (WEBHOOK_ENDPOINT_LIMIT beyond). */
export const MAX_ENDPOINTS_PER_ORGANIZATION = 20;

/** How long the secret a rotation replaced still signs beside the new one. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The columns an answer needs, timestamps already as ISO 8601; never a ciphertext. */
export const ENDPOINT_COLUMNS =
  `id, organization_id, url, description, events, state, disabled_reason, ${iso('failing_since')} AS failing_since, ` +
  `secret_version, ${iso('previous_secret_until')} AS previous_secret_until, ${iso('created_at')} AS created_at, ` +
  `${iso('updated_at')} AS updated_at`;

const endpointRowSchema = z.object({
  id: z.uuid(),
  organization_id: z.uuid(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.enum(EVENT_TYPES)),
  state: z.enum(['enabled', 'disabled']),
  disabled_reason: z.enum(['admin', 'failing']).nullable(),
  failing_since: z.string().nullable(),
  secret_version: z.number().int(),
  previous_secret_until: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** A row read with ENDPOINT_COLUMNS, validated, as the routes show it. */
export function endpointFromRow(row: unknown): Endpoint {
  const r = endpointRowSchema.parse(row);
  return endpointSchema.parse({
    endpointId: r.id,
    organizationId: r.organization_id,
    url: r.url,
    description: r.description,
    events: r.events,
    state: r.state,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    secretVersion: r.secret_version,
    previousSecretUntil: r.previous_secret_until,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
}

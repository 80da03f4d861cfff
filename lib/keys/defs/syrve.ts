// The Syrve runtime-session keys: the cached session, its refresh lock, the reconnect circuit and the credential version.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { uuid } from '../id-segments.ts';
import { counter, json, lockOwner } from '../key-values.ts';
import { orgScope } from '../scopes.ts';

/** Default bound of a cached session's TTL when the upstream gives no expiry (config SYRVE_SESSION_CACHE_SECONDS):
 * iiko's REST sessions end after about an hour idle and say nothing of it; ten minutes stays well inside. */
export const SYRVE_SESSION_CACHE_SECONDS = 600;
/** The refresh lock: long enough for one login (5 s deadline) with room, short enough that a dead holder blocks little. */
export const SYRVE_REFRESH_LOCK_TTL_SECONDS = 15;
/** Default reconnect cooldown (config SYRVE_RECONNECT_COOLDOWN_SECONDS), and the longest it may be set to. */
export const SYRVE_RECONNECT_COOLDOWN_SECONDS = 900;
export const SYRVE_RECONNECT_COOLDOWN_MAX_SECONDS = 86_400;
/** Outlives any login in flight (lock 15 s, waits, deadlines) that could still try to store a session of older credentials. */
export const SYRVE_CREDENTIAL_VERSION_TTL_SECONDS = 300;

export const sessionRecordSchema = z.lazy(() =>
  z.strictObject({
    connectionId: z.uuid(),
    organizationId: z.uuid(),
    /** The upstream's session token: allowed only here, in Redis with a TTL — never in PostgreSQL, logs or responses. */
    sessionId: z.string().min(1).max(512),
    createdAtUtc: z.iso.datetime(),
    expiresAtUtc: z.iso.datetime(),
    sessionTransport: z.literal('rest_session'),
    correlationId: z.string().max(128).optional(),
    credentialVersion: z.number().int().positive(),
  }),
);
export type SessionRecord = z.infer<typeof sessionRecordSchema>;

export const syrveKeys = {
  syrveRuntimeToken: defineKey({
    scope: orgScope,
    domain: 'syrve',
    purpose: 'runtime-token',
    id: [uuid('connectionId')],
    // At most the upstream expiry, else the configured cache bound.
    ttl: { varies: true },
    value: json(sessionRecordSchema),
  }),
  syrveRuntimeTokenRefreshLock: defineKey({
    scope: orgScope,
    domain: 'syrve',
    purpose: 'runtime-token-refresh-lock',
    id: [uuid('connectionId')],
    ttl: { seconds: SYRVE_REFRESH_LOCK_TTL_SECONDS },
    value: lockOwner,
  }),
  syrveReconnectFailures: defineKey({
    scope: orgScope,
    domain: 'syrve',
    purpose: 'reconnect-failures',
    id: [uuid('connectionId')],
    ttl: { maxSeconds: SYRVE_RECONNECT_COOLDOWN_MAX_SECONDS },
    value: counter,
  }),
  syrveCredentialVersion: defineKey({
    scope: orgScope,
    domain: 'syrve',
    purpose: 'credential-version',
    id: [uuid('connectionId')],
    ttl: { seconds: SYRVE_CREDENTIAL_VERSION_TTL_SECONDS },
    value: counter,
  }),
};

// Request and response schemas of the operator routes.
import * as z from 'zod';
import { uuidId } from '../../lib/http/route-schemas.ts';

export const tenantParams = z.strictObject({ orgId: uuidId });

export const suspendBody = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .regex(/^[^\p{Cc}]+$/u, 'no control characters')
    .describe('Kept in PostgreSQL only: never in an answer, a cache or a log.'),
});

export const stateResponse = z.object({
  organizationId: z.uuid(),
  state: z.enum(['active', 'suspended']),
  previousState: z.enum(['active', 'suspended']),
});

export const deleteBody = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1)
    .max(256)
    .regex(/^[^\p{Cc}]+$/u, 'no control characters')
    .describe('Kept in the `tenant.deleted` audit row only: never in an answer, a cache or a log.'),
});

export const deleteResponse = z.object({
  organizationId: z.uuid(),
  state: z.literal('deleted'),
  previousState: z.enum(['active', 'suspended', 'deleted']).describe('"deleted": a repeat; nothing changed in PostgreSQL'),
  ended: z
    .object({
      sessions: z.int().describe('Live sessions opened in it, revoked now (their access tokens refused at once)'),
      invites: z.int().describe('Active invites cancelled'),
      exports: z.int().describe('Unfinished audit exports cancelled'),
      syrveConnections: z.int().describe('Syrve connections disabled (their cached sessions dropped)'),
    })
    .describe('What this call ended (zeros on a repeat, but for invites a first call could not cancel)'),
  denylistPending: z
    .int()
    .describe('Revoked sessions whose denylist entry did not land: refused through PostgreSQL until the denylist repair writes them'),
});

export const forgetResponse = z.object({
  organizationId: z.uuid(),
  landed: z.boolean().describe('false: Redis did not confirm; the entries still expire by their TTL (at most 5 minutes).'),
});

export const userParams = z.strictObject({ userId: uuidId });

export const mfaResetResponse = z.object({
  userId: z.uuid(),
  wasConfirmed: z.boolean().describe('false: the factor removed was still pending (never confirmed)'),
  recoveryCodesLeft: z.int().describe('Unused recovery codes deleted with it'),
});

const limitView = z.object({
  kind: z.enum(['user-route', 'user', 'tenant']),
  quota: z.int().describe('Requests per 60 s sliding window: the plan’s, else the default'),
  used: z.int().describe('The sliding window’s count now'),
  blocked: z.boolean().describe('true: the next request is refused (429 RATE_LIMITED)'),
});

/** A route as the limiter names it: method and template, `GET /orgs/{orgId}/members`. */
const routeName = z
  .string()
  .max(200)
  .regex(/^(?:GET|POST|PUT|PATCH|DELETE) \/[A-Za-z0-9/{}._-]*$/, 'a method and a route template, e.g. GET /orgs/{orgId}/members');

export const tenantRateLimitResponse = z.object({ organizationId: z.uuid(), limits: z.array(limitView) });

export const userRateLimitQuery = z.strictObject({
  organizationId: uuidId.optional().describe('The organisation whose routes are looked at; absent: the user’s own routes'),
  route: routeName.optional().describe('Also this route’s per-user counter'),
});

export const userRateLimitResponse = z.object({ userId: z.uuid(), limits: z.array(limitView) });

export const liftResponse = z.object({
  cleared: z.int().describe('Counter windows deleted (0: nothing was counted)'),
});

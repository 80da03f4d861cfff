// The API rate limiter's counters: one window of one limit (a user on a route, a user, a tenant) for one hashed subject.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { generation, hashed, integer, oneOf } from '../id-segments.ts';
import { counter, json } from '../key-values.ts';
import { anyScope, orgScope } from '../scopes.ts';

/** The three limits every authenticated request counts in (docs/design/limits.md#api-rate-limits). */
export const RATE_LIMIT_KINDS = ['user-route', 'user', 'tenant'] as const;

/** Two windows (the current one is read again as the previous one for a whole window) and a second for clock skew. */
export const RATE_LIMIT_COUNTER_MAX_SECONDS = 121;

/** An organisation's plan limits as cached (lib/runtime/ratelimit/plan.ts); null: the table's default for that limit. */
export const planLimitsSchema = z.lazy(() =>
  z.strictObject({
    organizationId: z.uuid(),
    userRoute: z.int().min(1).max(10_000_000).nullable(),
    user: z.int().min(1).max(10_000_000).nullable(),
    tenant: z.int().min(1).max(10_000_000).nullable(),
  }),
);
export type PlanLimits = z.infer<typeof planLimitsSchema>;

/** A plan changes rarely and by an operator: five minutes of staleness, like the settings entry beside it. */
export const PLAN_LIMITS_TTL_SECONDS = 300;

export const rateLimitKeys = {
  rateLimitCounter: defineKey({
    // The organisation's hash tag on its routes (all three counters in one script), the user's on routes without one.
    scope: anyScope(),
    domain: 'ratelimit',
    purpose: 'counter',
    // `{kind}.{subject}.{windowNumber}`: the window number is unix ms / window length (60 s: 8 digits for centuries).
    id: [
      oneOf('kind', RATE_LIMIT_KINDS),
      hashed('subject', 'subjectHash'),
      integer('windowNumber', 9_999_999_999, 'a non-negative integer (unix ms / window length)'),
    ],
    ttl: { maxSeconds: RATE_LIMIT_COUNTER_MAX_SECONDS },
    value: counter,
  }),
  orgPlanLimitsCache: defineKey({
    scope: orgScope,
    domain: 'cache',
    purpose: 'rate-limits',
    id: [generation()],
    ttl: { seconds: PLAN_LIMITS_TTL_SECONDS },
    value: json(planLimitsSchema),
  }),
};

// signInPolicy.set: an organisation admin replaces the policy. The change, its lockout check and its audit row are one
// statement; every sign-in after its commit reads the new policy (none is cached), and sessions already open go on.
import type { Deps } from '../../deps.ts';
import { computedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { policyFromRow, type SignInPolicy } from './policy.ts';

export interface SetPolicyInput {
  organizationId: string;
  /** The admin, already authorised for the organisation (authorizeOrgAdmin). */
  adminUserId: string;
  policy: SignInPolicy;
  correlationId: string;
}

export type SetPolicyOutcome =
  /** `changed` false: the organisation already had this policy; nothing was written. */
  | { ok: true; policy: SignInPolicy; changed: boolean }
  | { ok: false; reason: 'not-found' }
  /** No organisation-wide OrganizationAdmin could sign in under it; nothing was written. */
  | { ok: false; reason: 'lockout' };

interface Row {
  outcome: 'not-found' | 'lockout' | 'unchanged' | 'changed';
}

/**
 * sign_in_policy_set (migrations/0026_sign_in_policy.sql) takes the organisation's row FOR NO KEY UPDATE: policy
 * changes and member changes of one organisation run one after the other, and a session insert (which reads the row FOR
 * SHARE) commits either before the change or under the new policy. `policy.changed` is written only when it changed,
 * with the policy before and after.
 */
export async function setSignInPolicy(deps: Deps, input: SetPolicyInput): Promise<SetPolicyOutcome> {
  const methods = [...input.policy.allowedMethods].sort();
  const audit = computedAuditInsert(
    {
      action: 'policy.changed',
      actorUserId: input.adminUserId,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.organizationId,
      correlationId: input.correlationId,
      details: { policy: 'sign-in', afterRequireMfa: input.policy.requireMfa, afterMethods: methods.join(',') },
    },
    new Date(deps.clock.now()),
    {
      computed: {
        beforeRequireMfa: 'SELECT before_require_mfa FROM changed',
        beforeMethods: "SELECT array_to_string(ARRAY(SELECT unnest(before_methods) ORDER BY 1), ',') FROM changed",
      },
      when: "(SELECT outcome FROM changed) = 'changed'",
    },
    4,
  );
  const rows = await dbCall('commit', 'signInPolicy.set', (signal) =>
    deps.db.query<Row>(
      `WITH changed AS MATERIALIZED (SELECT * FROM sign_in_policy_set($1::uuid, $2::boolean, $3::text[])),
            audit AS (${audit.text})
       SELECT outcome FROM changed`,
      [input.organizationId, input.policy.requireMfa, methods, ...audit.params],
      { signal },
    ),
  );
  const outcome = rows[0]?.outcome ?? 'not-found';
  if (outcome === 'not-found' || outcome === 'lockout') return { ok: false, reason: outcome };
  return {
    ok: true,
    changed: outcome === 'changed',
    policy: policyFromRow({ sign_in_require_mfa: input.policy.requireMfa, sign_in_methods: methods }),
  };
}

// An organisation's sign-in policy: its shape, and what it says of one sign-in. The same rule as the session insert's
// trigger (auth_sign_in_policy_verdict, migrations/0026_sign_in_policy.sql), asked early so a refusal comes before any
// challenge, token or session exists.
import * as z from 'zod';

/** The ways of signing in a policy can allow: a password, an OpenID provider, a passkey. */
export const POLICY_METHODS = ['password', 'oidc', 'passkey'] as const;
export type PolicyMethod = (typeof POLICY_METHODS)[number];

export const signInPolicySchema = z.strictObject({
  requireMfa: z.boolean().describe('Members must sign in with a second factor (TOTP, or a passkey); one without enrols at sign-in'),
  allowedMethods: z
    .array(z.enum(POLICY_METHODS))
    .min(1, 'allow at least one sign-in method')
    .refine((methods) => new Set(methods).size === methods.length, 'each method at most once')
    .describe('The sign-in methods members may use; at least one'),
});
export type SignInPolicy = z.infer<typeof signInPolicySchema>;

/** What every organisation had before it set one, and what migrations/0026's column defaults hold. */
export const DEFAULT_SIGN_IN_POLICY: SignInPolicy = { requireMfa: false, allowedMethods: ['oidc', 'passkey', 'password'] };

export type PolicyVerdict = 'allowed' | 'method-not-allowed' | 'mfa-enrolment-required';

/**
 * For a first step by `method`: not allowed at all; allowed, but the member has no second factor where one is required
 * (`hasSecondFactor`: a confirmed TOTP factor, which the next step asks for); or allowed. A passkey is a second factor
 * by itself (user verification is required), so it never needs an enrolment.
 */
export function policyVerdict(policy: SignInPolicy, method: PolicyMethod, hasSecondFactor: boolean): PolicyVerdict {
  if (!policy.allowedMethods.includes(method)) return 'method-not-allowed';
  if (policy.requireMfa && method !== 'passkey' && !hasSecondFactor) return 'mfa-enrolment-required';
  return 'allowed';
}

/** The two columns of `organizations` as a sign-in path's read returns them; null (no organisation row): the default. */
export function policyFromRow(row: { sign_in_require_mfa: boolean | null; sign_in_methods: string[] | null }): SignInPolicy {
  if (row.sign_in_require_mfa === null || row.sign_in_methods === null) return DEFAULT_SIGN_IN_POLICY;
  // In alphabetical order, whatever order they were stored in, so the same policy always reads the same.
  return signInPolicySchema.parse({ requireMfa: row.sign_in_require_mfa, allowedMethods: [...row.sign_in_methods].sort() });
}

// The throttle counter: one fixed window of one action for one hashed subject, in the scope whose bucket it is.
import { defineKey } from '../define-key.ts';
import { hashed, integer, oneOf } from '../id-segments.ts';
import { counter } from '../key-values.ts';
import { anyScopeOrTag } from '../scopes.ts';

/** Actions a throttle counter may count; a new limiter adds its action here. */
export const THROTTLE_ACTIONS = [
  'invite-create',
  'invite-resend',
  'invite-accept',
  'login',
  'login-address',
  'login-ip',
  'mfa-verify',
  'password-reset',
  'tenant-resolve',
  'mfa-reauth',
  'password-reset-ip',
  'password-reset-confirm-ip',
  'mfa-verify-ip',
  'refresh-ip',
  'mfa-recover-ip',
  'oidc-audit-ip',
  'oidc-audit-org',
  'domain-verify',
  'oidc-callback',
  'handoff-exchange',
  'passkey-options-ip',
  'passkey-verify-ip',
  'api-key-refused-ip',
  'api-key-miss-ip',
] as const;

export const throttleKeys = {
  throttleCounter: defineKey({
    // platform:{tenant-resolve}: the resolve limiter's counter shares the resolve cache's hash tag (one script reads both);
    // platform:{oidc-callback}, platform:{sso-handoff} and platform:{passkey} likewise the OIDC states', the handoff
    // codes' and the passkey challenges'.
    scope: anyScopeOrTag('tenant-resolve', 'oidc-callback', 'sso-handoff', 'passkey'),
    domain: 'throttle',
    purpose: 'counter',
    // `{action}.{subject}.{windowStartSeconds}`: dots cannot occur in an action or a digest; 10 digits bound the length.
    id: [
      oneOf('action', THROTTLE_ACTIONS),
      hashed('subject', 'subjectHash'),
      integer('windowStartSeconds', 9_999_999_999, 'a non-negative integer of unix seconds'),
    ],
    // The seconds left in its window, set in the same script as the first INCR.
    ttl: { varies: true },
    value: counter,
  }),
};

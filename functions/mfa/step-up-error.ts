// The step-up's refusals as answers (lib/auth/mfa/step-up.ts), for every change of what protects an account: MFA's and
// the passkeys'. A wrong password and a wrong code are one answer.
import { RECENT_SIGN_IN_SECONDS, type StepUpRefusal } from '../../lib/auth/mfa/step-up.ts';
import { errors } from '../../lib/http/app-error.ts';

export function stepUpError(refusal: StepUpRefusal) {
  switch (refusal.reason) {
    case 'rate-limited':
      return errors.RATE_LIMITED(refusal.retryAfterSeconds);
    case 'sign-in-too-old':
      return errors.REAUTH_FAILED(
        `this account has no password: sign in again, then make this change within ${RECENT_SIGN_IN_SECONDS / 60} minutes`,
      );
    case 'sign-in-not-accepted':
      return errors.REAUTH_FAILED(
        'this account has no password, and an organisation where you hold a role does not accept the sign-in this session used: sign in through an identity provider every one of them lists, then make this change',
      );
    case 'unknown-user':
      return errors.FORBIDDEN('MFA and passkeys are for accounts of this service');
    case 'no-factor':
      return errors.NOT_FOUND('this account has no confirmed MFA factor');
    case 'refused':
      return errors.REAUTH_FAILED();
  }
}

// How the session an enrolment token opens is recorded: its first step with the factor just enrolled. The passkeys'
// registration (an enrolment token presented at passkey registration) adds its factor here.
import type { EnrolmentRecord } from '../../keys/index.ts';
import type { SignInMethod } from '../sessions/open-session.ts';

/** The second factors an enrolment token can enrol. */
export type EnrolledFactor = 'totp';

export function enrolledSessionMethod(record: EnrolmentRecord, factor: EnrolledFactor): { method: SignInMethod; providerId?: string } {
  switch (factor) {
    case 'totp':
      return record.firstStep === 'oidc' && record.providerId !== undefined
        ? { method: 'oidc+totp', providerId: record.providerId }
        : { method: 'password+totp' };
  }
}

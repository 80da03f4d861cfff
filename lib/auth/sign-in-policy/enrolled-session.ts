// How the session an enrolment token opens is recorded: its first step with the factor just enrolled; a passkey, being
// a second factor in itself (user verification), opens a `passkey` session whatever the first step was.
import type { EnrolmentRecord } from '../../keys/index.ts';
import type { SignInMethod } from '../sessions/open-session.ts';

/** The second factors an enrolment token can enrol. */
export type EnrolledFactor = 'totp' | 'passkey';

export function enrolledSessionMethod(record: EnrolmentRecord, factor: EnrolledFactor): { method: SignInMethod; providerId?: string } {
  switch (factor) {
    case 'totp':
      return record.firstStep === 'oidc' && record.providerId !== undefined
        ? { method: 'oidc+totp', providerId: record.providerId }
        : { method: 'password+totp' };
    case 'passkey':
      return { method: 'passkey' };
  }
}

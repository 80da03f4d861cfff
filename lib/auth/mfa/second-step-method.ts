// How a session opened by the MFA step is recorded: the first step's kind (the password, or an OpenID provider's
// sign-in, carried by the session state) with the factor after it.
import type { SessionStateRecord } from './challenge-record.ts';
import type { SignInMethod } from '../sessions/open-session.ts';

export function secondStepMethod(state: SessionStateRecord): { method: SignInMethod; providerId?: string } {
  return state.providerId === undefined ? { method: 'password+totp' } : { method: 'oidc+totp', providerId: state.providerId };
}

// The method a session opened by the MFA step records: the first step's kind, so a provider's sign-in finished with the
// factor is never recorded as a password's (migrations/0021_session_switch.sql).
import { describe, expect, it } from 'vitest';
import { secondStepMethod } from '../../lib/auth/mfa/second-step-method.ts';

const state = {
  sessionStateId: '01900000-0000-7000-8000-000000000001',
  organizationId: '01900000-0000-7000-8000-000000000002',
  email: 'a@example.com',
  createdAtUtc: '2026-01-01T00:00:00.000Z',
  expiresAtUtc: '2026-01-01T00:05:00.000Z',
  correlationId: 'c',
};

describe('secondStepMethod', () => {
  it('after a password: password+totp, no provider', () => {
    expect(secondStepMethod(state)).toEqual({ method: 'password+totp' });
  });
  it("after a provider's sign-in: oidc+totp with that provider", () => {
    expect(secondStepMethod({ ...state, providerId: 'local' })).toEqual({ method: 'oidc+totp', providerId: 'local' });
  });
});

// When an emailed invitation may be asked for: INVITE_LINK_BASE set, and in staging/prod an email API to send through.
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../lib/deps.ts';
import { emailDeliveryUnavailable } from '../../lib/runtime/invites/deliver-invite.ts';

const emailApi = { url: 'https://mail.example/send', token: 't', from: 'no-reply@example.test' };
const deps = (config: Record<string, unknown>) => ({ config }) as unknown as Deps;

describe('emailDeliveryUnavailable', () => {
  it('names INVITE_LINK_BASE when it is unset, in any environment', () => {
    expect(emailDeliveryUnavailable(deps({ appEnv: 'dev' }))).toMatch(/INVITE_LINK_BASE/);
    expect(emailDeliveryUnavailable(deps({ appEnv: 'prod', emailApi }))).toMatch(/INVITE_LINK_BASE/);
  });

  it('in staging/prod needs the email API; dev and test may use another notifier (the dev mailbox)', () => {
    const linkBase = 'https://app.example/invites/accept';
    expect(emailDeliveryUnavailable(deps({ appEnv: 'prod', inviteLinkBase: linkBase }))).toMatch(/NOTIFY_EMAIL_API_URL/);
    expect(emailDeliveryUnavailable(deps({ appEnv: 'staging', inviteLinkBase: linkBase }))).toMatch(/NOTIFY_EMAIL_API_URL/);
    expect(emailDeliveryUnavailable(deps({ appEnv: 'prod', inviteLinkBase: linkBase, emailApi }))).toBeUndefined();
    expect(emailDeliveryUnavailable(deps({ appEnv: 'dev', inviteLinkBase: linkBase }))).toBeUndefined();
  });
});

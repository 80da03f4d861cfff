// The invite token names its own object and carries 32 random bytes; anything else reads as "no such token", never a throw.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { uuidv7 } from 'uuidv7';
import { issueInviteToken, readInviteToken } from '../../lib/runtime/invites/invite-token.ts';

describe('invite token', () => {
  it('round-trips the organisation and invite ids, and two tokens for one invite differ', () => {
    const organizationId = uuidv7();
    const inviteId = uuidv7();
    const first = issueInviteToken(organizationId, inviteId);
    const second = issueInviteToken(organizationId, inviteId);
    expect(first).toMatch(/^rsi_[A-Za-z0-9_-]{86}$/);
    expect(first).not.toBe(second);
    expect(readInviteToken(first)).toEqual({ organizationId, inviteId });
    expect(readInviteToken(second)).toEqual({ organizationId, inviteId });
  });

  it('returns undefined, never throws, for arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (input) => {
        const read = readInviteToken(input);
        expect(read === undefined || (typeof read.organizationId === 'string' && typeof read.inviteId === 'string')).toBe(true);
      }),
    );
    for (const bad of ['', 'rsi_', 'rsi_' + 'A'.repeat(85), 'rsi_' + 'A'.repeat(87), 'rsx_' + 'A'.repeat(86), 'rsi_' + '+'.repeat(86)]) {
      expect(readInviteToken(bad)).toBeUndefined();
    }
  });
});

// The denylist: revoked sessions and revoked token ids, present until every token they stop has expired.
import { defineKey } from '../define-key.ts';
import { digest, uuid } from '../id-segments.ts';
import { marker } from '../key-values.ts';
import { platformScope } from '../scopes.ts';

export const revocationKeys = {
  revokedSession: defineKey({
    scope: platformScope,
    domain: 'auth',
    purpose: 'revoked-session',
    id: [uuid('sessionId')],
    // The remaining life of the longest-lived token the session can still present (a configurable lifetime).
    ttl: { varies: true },
    value: marker,
  }),
  revokedJti: defineKey({
    scope: platformScope,
    domain: 'auth',
    purpose: 'revoked-jti',
    id: [digest('jtiDigest', 'sha256Hex(jti)')],
    // The revoked token's exp minus now.
    ttl: { varies: true },
    value: marker,
  }),
};

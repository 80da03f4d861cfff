// A fresh Ed25519 private JWK set for AUTH_SIGNING_KEYS, made per test run (no key material lives in the repository).
import { generateKeyPairSync } from 'node:crypto';

export function testSigningKeys(kid = 'test-ed25519'): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  return JSON.stringify([{ ...privateKey.export({ format: 'jwk' }), kid }]);
}

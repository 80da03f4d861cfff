// The console's strict CSP: the nonce is the only way in for inline script and style, and a bad nonce never reaches a header.
import { describe, expect, it } from 'vitest';
import { consoleCsp, cspNonce } from '../../lib/http/csp.ts';

describe('consoleCsp', () => {
  it('pins scripts and inline styles to the nonce and allows nothing else inline or framed', () => {
    const nonce = cspNonce();
    expect(consoleCsp(nonce)).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data:; ` +
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(consoleCsp(nonce)).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });

  it('makes a fresh 128-bit nonce each time', () => {
    const nonces = new Set(Array.from({ length: 100 }, () => cspNonce()));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it.each(["abc'; script-src *", 'short', 'a'.repeat(21), `${'a'.repeat(22)}\r\nset-cookie: x=1`])('refuses the nonce %j', (nonce) => {
    expect(() => consoleCsp(nonce)).toThrow(TypeError);
  });
});

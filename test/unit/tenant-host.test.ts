// The normal forms a pre-auth caller names a tenant by: hosts lowercased, one trailing dot dropped, ASCII only (IDNA as
// punycode), no port, path or IP; slugs as DNS labels; stored custom domains need two labels.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isChoosableSlug, isCustomDomain, normalizeHost, normalizeSlug } from '../../lib/runtime/tenants/index.ts';

describe('normalizeHost', () => {
  it('lowercases and drops one trailing dot', () => {
    expect(normalizeHost('Shop.Example.COM.')).toEqual({ ok: true, host: 'shop.example.com' });
    expect(normalizeHost('xn--bcher-kva.example')).toEqual({ ok: true, host: 'xn--bcher-kva.example' });
    expect(normalizeHost('localhost')).toEqual({ ok: true, host: 'localhost' });
  });

  it('refuses non-ASCII rather than converting it, and every shape that is not a host name', () => {
    expect(normalizeHost('bücher.example')).toEqual({ ok: false, problem: 'not-ascii' });
    expect(normalizeHost('ex\u0430mple.com')).toEqual({ ok: false, problem: 'not-ascii' });
    for (const bad of [
      '',
      '.',
      'a..b',
      'example.com..',
      '-a.example',
      'a-.example',
      'a.example:443',
      'a.example/x',
      '10.0.0.1',
      '[::1]',
      'a b.example',
      'a_b.example',
      `${'a'.repeat(64)}.example`,
      `${'a.'.repeat(127)}aa`,
    ]) {
      expect(normalizeHost(bad), bad).toEqual({ ok: false, problem: 'shape' });
    }
  });

  it('is idempotent, and what it returns is lowercase ASCII without a trailing dot', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '.', 'é', ':', 'x') }), (raw) => {
        const once = normalizeHost(raw);
        if (!once.ok) return;
        expect(once.host).toMatch(/^[a-z0-9.-]+$/);
        expect(once.host.endsWith('.')).toBe(false);
        expect(normalizeHost(once.host)).toEqual(once);
      }),
    );
  });
});

describe('slugs and custom domains', () => {
  it('takes a slug case-insensitively as a DNS label, never with a dot', () => {
    expect(normalizeSlug('Fresh-Co')).toBe('fresh-co');
    for (const bad of ['', 'a.b', '-a', 'a-', 'a_b', 'a'.repeat(64), 'é']) expect(normalizeSlug(bad), bad).toBeUndefined();
  });

  it('keeps the derived o-<hex> slugs for PostgreSQL', () => {
    expect(isChoosableSlug('fresh-co')).toBe(true);
    expect(isChoosableSlug(`o-${'0'.repeat(32)}`)).toBe(false);
    expect(isChoosableSlug(`o-${'0'.repeat(31)}`)).toBe(true);
  });

  it('needs two labels for a custom domain, already normalized', () => {
    expect(isCustomDomain('shop.example')).toBe(true);
    expect(isCustomDomain('localhost')).toBe(false);
    expect(isCustomDomain('Shop.example')).toBe(false);
    expect(isCustomDomain('shop.example.')).toBe(false);
  });
});

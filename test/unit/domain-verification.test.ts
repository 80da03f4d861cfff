// The pure parts of custom-domain verification: reading a TXT record as resolvers present it, and where
// DOMAIN_VERIFY_DOH_URL may point.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config/index.ts';
import { txtText } from '../../lib/upstream/dns/index.ts';

describe('txtText', () => {
  it('reads the quoted presentation form (Cloudflare) and the bare form (Google) alike', () => {
    expect(txtText('"runstate-verification=abc"')).toBe('runstate-verification=abc');
    expect(txtText('runstate-verification=abc')).toBe('runstate-verification=abc');
    // A long record split into strings is joined; escapes are undone.
    expect(txtText('"runstate-" "verification=abc"')).toBe('runstate-verification=abc');
    expect(txtText('"a\\"b\\\\c\\065"')).toBe('a"b\\cA');
  });
});

describe('DOMAIN_VERIFY_DOH_URL', () => {
  const base = {
    UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:8079',
    UPSTASH_REDIS_REST_TOKEN: 'token',
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
    AUTH_JWT_SECRET: 'x'.repeat(32),
    INDEX_HASH_KEY: 'y'.repeat(32),
  };
  const problems = (env: Record<string, string>): string => {
    try {
      loadConfig({ ...base, ...env });
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('is optional; https anywhere, plain http only for a loopback resolver outside staging/prod', () => {
    expect(loadConfig(base).domainVerify).toBeUndefined();
    expect(loadConfig({ ...base, DOMAIN_VERIFY_DOH_URL: 'https://cloudflare-dns.com/dns-query' }).domainVerify).toEqual({
      dohUrl: 'https://cloudflare-dns.com/dns-query',
    });
    expect(loadConfig({ ...base, DOMAIN_VERIFY_DOH_URL: 'http://127.0.0.1:5353/dns-query' }).domainVerify?.dohUrl).toBe(
      'http://127.0.0.1:5353/dns-query',
    );
    expect(problems({ DOMAIN_VERIFY_DOH_URL: 'http://dns.example/dns-query' })).toContain('DOMAIN_VERIFY_DOH_URL: must be https');
    expect(problems({ DOMAIN_VERIFY_DOH_URL: 'https://user:pw@dns.example/dns-query' })).toContain('credentials');
    expect(problems({ DOMAIN_VERIFY_DOH_URL: 'ftp://dns.example/' })).toContain('DOMAIN_VERIFY_DOH_URL');
  });

  it('staging and prod refuse plain http and a loopback resolver', () => {
    for (const url of ['http://dns.example/dns-query', 'https://127.0.0.1/dns-query']) {
      expect(problems({ APP_ENV: 'prod', DOMAIN_VERIFY_DOH_URL: url })).toContain('DOMAIN_VERIFY_DOH_URL: must be a public https URL');
    }
  });
});

// Where events may go (lib/events/url-policy.ts): schemes, credentials, IP literals in every notation, what names resolve to, per APP_ENV.
import { describe, expect, it } from 'vitest';
import { checkEndpointUrl } from '../../lib/events/url-policy.ts';
import type { AppEnv } from '../../lib/config/index.ts';

function resolverOf(answers: Record<string, string[]>) {
  const asked: string[] = [];
  return {
    asked,
    resolveHost: (hostname: string) => {
      asked.push(hostname);
      return Promise.resolve(answers[hostname] ?? []);
    },
  };
}

const check = (url: string, appEnv: AppEnv, answers: Record<string, string[]> = {}) => {
  const resolver = resolverOf(answers);
  return checkEndpointUrl(url, { appEnv, resolveHost: resolver.resolveHost }).then((outcome) => ({ outcome, asked: resolver.asked }));
};

describe('in staging and prod', () => {
  it.each([
    'https://127.0.0.1/h',
    'https://127.1/h',
    'https://0x7f000001/h',
    'https://2130706433/h',
    'https://0177.0.0.1/h',
    'https://10.0.0.1/h',
    'https://172.16.5.4/h',
    'https://192.168.1.1/h',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/h',
    'https://100.100.100.200/h',
    'https://0.0.0.0/h',
    'https://224.0.0.1/h',
    'https://255.255.255.255/h',
    'https://[::1]/h',
    'https://[::]/h',
    'https://[::ffff:127.0.0.1]/h',
    'https://[::ffff:8.8.8.8]/h',
    'https://[fe80::1]/h',
    'https://[fd00:ec2::254]/h',
    'https://[ff02::1]/h',
    'https://[64:ff9b::a00:1]/h',
    'https://[2001:db8::1]/h',
  ])('refuses the IP literal of %s without resolving anything', async (url) => {
    for (const env of ['staging', 'prod'] as const) {
      const { outcome, asked } = await check(url, env);
      expect(outcome).toMatchObject({ ok: false, reason: 'forbidden' });
      expect(asked).toEqual([]);
    }
  });

  it.each([
    ['a private address', ['10.0.0.7']],
    ['loopback', ['127.0.0.1']],
    ['IPv6 loopback', ['::1']],
    ['an IPv4-mapped IPv6 address', ['::ffff:192.168.0.1']],
    ['a public address beside a metadata one', ['93.184.216.34', '169.254.169.254']],
    ['a public IPv4 beside a link-local IPv6', ['93.184.216.34', 'fe80::1%eth0']],
    ['nothing', []],
    ['something that is no address', ['not-an-ip']],
  ])('refuses a name that resolves to %s', async (_, addresses) => {
    const { outcome, asked } = await check('https://hooks.example.com/h', 'prod', { 'hooks.example.com': addresses });
    expect(outcome).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(asked).toEqual(['hooks.example.com']);
  });

  it.each([
    'https://localhost/h',
    'https://api.localhost/h',
    'https://metadata.google.internal/h',
    'https://printer.local/h',
    'https://intranet/h',
  ])('refuses the local or metadata name of %s without resolving it', async (url) => {
    const { outcome, asked } = await check(url, 'prod', { localhost: ['93.184.216.34'] });
    expect(outcome).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(asked).toEqual([]);
  });

  it('accepts https to a name whose every address is public, and a public literal', async () => {
    const named = await check('https://Hooks.Example.com:8443/runstate?x=1', 'prod', {
      'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    });
    expect(named.outcome).toEqual({ ok: true, url: 'https://hooks.example.com:8443/runstate?x=1' });
    expect((await check('https://93.184.216.34/h', 'staging')).outcome).toMatchObject({ ok: true });
  });

  it.each([
    ['http', 'http://hooks.example.com/h'],
    ['credentials', 'https://user:pw@hooks.example.com/h'],
    ['a user alone', 'https://user@hooks.example.com/h'],
    ['a fragment', 'https://hooks.example.com/h#x'],
    ['another scheme', 'ftp://hooks.example.com/h'],
    ['no URL at all', 'hooks.example.com/h'],
    ['a URL too long', `https://hooks.example.com/${'a'.repeat(2100)}`],
  ])('refuses %s as a bad URL before resolving anything', async (_, url) => {
    const { outcome, asked } = await check(url, 'prod', { 'hooks.example.com': ['93.184.216.34'] });
    expect(outcome).toMatchObject({ ok: false, reason: 'bad-url' });
    expect(asked).toEqual([]);
  });

  it('refuses what a resolver that throws cannot answer', async () => {
    const outcome = await checkEndpointUrl('https://hooks.example.com/h', {
      appEnv: 'prod',
      resolveHost: () => Promise.reject(new Error('SERVFAIL')),
    });
    expect(outcome).toMatchObject({ ok: false, reason: 'forbidden' });
  });
});

describe('in test and dev', () => {
  it('test: http and loopback are allowed, every other refusal holds', async () => {
    expect((await check('http://127.0.0.1:4010/h', 'test')).outcome).toMatchObject({ ok: true });
    expect((await check('http://localhost:4010/h', 'test', { localhost: ['127.0.0.1', '::1'] })).outcome).toMatchObject({ ok: true });
    expect((await check('http://10.0.0.1/h', 'test')).outcome).toMatchObject({ ok: false, reason: 'forbidden' });
    expect((await check('http://hooks.example.com/h', 'test', { 'hooks.example.com': ['169.254.169.254'] })).outcome).toMatchObject({
      ok: false,
      reason: 'forbidden',
    });
  });

  it('dev: any http(s) URL without credentials, and nothing is resolved', async () => {
    const { outcome, asked } = await check('http://10.0.0.1:8080/h', 'dev');
    expect(outcome).toMatchObject({ ok: true });
    expect(asked).toEqual([]);
    expect((await check('http://u:p@10.0.0.1/h', 'dev')).outcome).toMatchObject({ ok: false, reason: 'bad-url' });
  });
});

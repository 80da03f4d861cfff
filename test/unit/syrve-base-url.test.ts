// The Syrve base-URL policy per environment, and proof that a refused URL never reaches fetch.
import { describe, expect, it } from 'vitest';
import { APP_ENVS, type AppEnv } from '../../lib/config/index.ts';
import { checkSyrveBaseUrl, createSyrveClient, passwordSha1Hex } from '../../lib/upstream/syrve/index.ts';

const DEPLOYED: AppEnv[] = ['staging', 'prod'];
const LOCAL: AppEnv[] = ['dev', 'test'];

// raw → the normalized base URL, in every environment.
const ACCEPTED_EVERYWHERE: [string, string][] = [
  ['https://rms.example.com', 'https://rms.example.com'],
  ['  https://rms.example.com/  ', 'https://rms.example.com'],
  ['https://RMS.Example.COM:443/resto/', 'https://rms.example.com'],
  ['https://rms.example.com:8080/resto/api', 'https://rms.example.com:8080'],
  ['https://rms.example.com:9443/resto/api/', 'https://rms.example.com:9443'],
  ['https://proxy.example.com/iiko/', 'https://proxy.example.com/iiko'],
  ['https://proxy.example.com/iiko/resto', 'https://proxy.example.com/iiko'],
  ['https://chain-42.iiko.it', 'https://chain-42.iiko.it'],
  ['https://ресторан.рф', 'https://xn--80ajzcicfi.xn--p1ai'],
  ['https://8.8.8.8', 'https://8.8.8.8'],
  ['https://[2606:4700:4700::1111]:443', 'https://[2606:4700:4700::1111]'],
];

const REFUSED_EVERYWHERE: string[] = [
  // not a URL, or not http(s)
  '',
  'rms.example.com',
  'ftp://rms.example.com',
  'file:///etc/passwd',
  'javascript:alert(1)',
  // http to anything but loopback
  'http://rms.example.com',
  'http://8.8.8.8',
  // userinfo, query, fragment, characters URL parsing would silently drop or reinterpret
  'https://user:secret@rms.example.com',
  'https://user@rms.example.com',
  'https://rms.example.com/?a=1',
  'https://rms.example.com/?',
  'https://rms.example.com#top',
  'https://rms.exa\tmple.com',
  'https://rms.example.com\n/resto',
  'https://rms.example.com\\@127.0.0.1',
  'https://rms.example.com/a%2e%2e/b',
  'https://rms.example.com//resto',
  // private, link-local, CGNAT, "this network", multicast, reserved, documentation, benchmarking
  'https://10.0.0.1',
  'http://10.0.0.1',
  'https://172.16.5.4',
  'https://172.31.255.255',
  'https://192.168.1.1',
  'https://169.254.169.254',
  'https://100.64.0.1',
  'https://100.100.100.200',
  'https://0.0.0.0',
  'https://0.1.2.3',
  'https://224.0.0.1',
  'https://240.0.0.1',
  'https://255.255.255.255',
  'https://198.18.0.1',
  'https://192.0.2.1',
  // the same, written the ways WHATWG URL normalizes into a dotted quad
  'https://167772161', // 10.0.0.1
  'https://0xa9fea9fe', // 169.254.169.254
  'https://025177524776', // 169.254.169.254, octal
  'https://0xa9.0376.43518', // 169.254.169.254, mixed
  'https://192.168.257', // 192.168.1.1
  // IPv6: unique local (AWS metadata), link-local, multicast, unspecified, mapped/compatible/NAT64/6to4/Teredo forms
  'https://[fc00::1]',
  'https://[fd00:ec2::254]',
  'https://[fe80::1]',
  'https://[ff02::1]',
  'https://[::]',
  'https://[::ffff:10.0.0.1]',
  'https://[::ffff:169.254.169.254]',
  'https://[::ffff:8.8.8.8]',
  'https://[::ffff:127.0.0.1]',
  'https://[::10.0.0.1]',
  'https://[64:ff9b::a9fe:a9fe]',
  'https://[64:ff9b::7f00:1]',
  'https://[64:ff9b:1::a00:1]',
  'https://[2002:a9fe:a9fe::1]',
  'https://[2001::1]',
  'https://[2001:db8::1]',
  // metadata and inside-the-network names
  'https://metadata.google.internal',
  'https://metadata.goog',
  'https://metadata',
  'https://instance-data',
  'https://instance-data.ec2.internal',
  'https://rms',
  'https://rms.local',
  'https://rms.internal',
  'https://router.home.arpa',
  'https://rms.localhost',
  'https://db.lan',
  'https://rms.corp',
  'https://rms.example.com.',
  'https://a_b.example.com',
];

// Loopback: refused in staging/prod; allowed in dev/test (http or https), normalized as shown.
const LOOPBACK: [string, string][] = [
  ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
  ['http://127.0.0.1:8080/resto/', 'http://127.0.0.1:8080'],
  ['https://127.0.0.1', 'https://127.0.0.1'],
  ['http://127.1.2.3', 'http://127.1.2.3'],
  ['http://localhost:3000', 'http://localhost:3000'],
  ['http://LOCALHOST:3000', 'http://localhost:3000'],
  ['http://[::1]:9000', 'http://[::1]:9000'],
  ['http://2130706433', 'http://127.0.0.1'],
  ['http://0x7f000001', 'http://127.0.0.1'],
  ['http://0177.0.0.1', 'http://127.0.0.1'],
  ['http://127.1', 'http://127.0.0.1'],
  ['http://0x7f.0.0.1:81', 'http://127.0.0.1:81'],
];

describe('checkSyrveBaseUrl', () => {
  it.each(APP_ENVS.flatMap((env) => ACCEPTED_EVERYWHERE.map(([raw, url]) => [env, raw, url] as const)))(
    '%s accepts %j as %s',
    (env, raw, url) => {
      expect(checkSyrveBaseUrl(raw, env)).toEqual({ ok: true, url });
    },
  );

  it.each(APP_ENVS.flatMap((env) => REFUSED_EVERYWHERE.map((raw) => [env, raw] as const)))('%s refuses %j', (env, raw) => {
    const check = checkSyrveBaseUrl(raw, env);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problem.length).toBeGreaterThan(0);
  });

  it.each(DEPLOYED.flatMap((env) => LOOPBACK.map(([raw]) => [env, raw] as const)))('%s refuses loopback %j', (env, raw) => {
    expect(checkSyrveBaseUrl(raw, env)).toEqual({ ok: false, problem: 'the host is a loopback address' });
  });

  it.each(LOCAL.flatMap((env) => LOOPBACK.map(([raw, url]) => [env, raw, url] as const)))(
    '%s accepts loopback %j as %s',
    (env, raw, url) => {
      expect(checkSyrveBaseUrl(raw, env)).toEqual({ ok: true, url });
    },
  );

  it('never repeats the URL, so a password in userinfo cannot reach a message', () => {
    const check = checkSyrveBaseUrl('https://admin:canary-userinfo-pw@rms.example.com', 'prod');
    expect(JSON.stringify(check)).not.toContain('canary-userinfo-pw');
  });

  it('refuses an over-long URL', () => {
    expect(checkSyrveBaseUrl(`https://rms.example.com/${'a'.repeat(600)}`, 'prod').ok).toBe(false);
  });
});

describe('a refused base URL never reaches fetch', () => {
  const refusedInProd = [
    'http://127.0.0.1:8080',
    'http://2130706433',
    'https://169.254.169.254',
    'https://[::ffff:169.254.169.254]',
    'https://metadata.google.internal',
    'https://10.0.0.1',
    'http://rms.example.com',
    'https://user:pw@rms.example.com',
  ];

  function clientWithSpy() {
    const calls: string[] = [];
    const spy: typeof fetch = (input) => {
      calls.push(String(input));
      throw new Error('fetch must not be called for a refused base URL');
    };
    return { client: createSyrveClient({ appEnv: 'prod', fetch: spy }), calls };
  }

  it.each(refusedInProd)('prod: %s → login, listStores and logout fail without calling fetch', async (baseUrl) => {
    const { client, calls } = clientWithSpy();
    const credentials = { login: 'admin', passwordSha1: await passwordSha1Hex('pw') };
    expect(await client.login({ baseUrl }, credentials, { timeoutMs: 1000 })).toEqual({ ok: false, reason: 'unavailable' });
    expect(await client.listStores({ baseUrl }, 'a-session')).toEqual({ ok: false, reason: 'failed' });
    await expect(client.logout({ baseUrl }, 'a-session')).resolves.toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('positive control: an accepted URL does reach the spy (which answers without any network)', async () => {
    const seen: { url: string; redirect: RequestRedirect | undefined; hasSignal: boolean }[] = [];
    const spy: typeof fetch = async (input, init) => {
      seen.push({ url: String(input), redirect: init?.redirect, hasSignal: init?.signal instanceof AbortSignal });
      return new Response('  3f2504e0-4f89-11d3-9a0c-0305e82c3301\n', { status: 200 });
    };
    const client = createSyrveClient({ appEnv: 'prod', fetch: spy });
    const result = await client.login(
      { baseUrl: 'https://rms.example.com/resto/' },
      { login: 'a&b=c d', passwordSha1: 'f'.repeat(40) },
      { timeoutMs: 1000 },
    );
    expect(result).toEqual({ ok: true, sessionId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' });
    expect(seen).toEqual([
      { url: `https://rms.example.com/resto/api/auth?login=a%26b%3Dc+d&pass=${'f'.repeat(40)}`, redirect: 'manual', hasSignal: true },
    ]);
  });
});

describe('passwordSha1Hex', () => {
  it('is the lowercase hex SHA-1 of the UTF-8 bytes', async () => {
    expect(await passwordSha1Hex('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(await passwordSha1Hex('')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    // "пароль" hashed as UTF-8 (echo -n пароль | sha1sum)
    expect(await passwordSha1Hex('пароль')).toBe('5670b4358ae287fe8e74c2ff6f6293f905409077');
  });
});

// The DNS-over-HTTPS host resolver (lib/upstream/dns/doh-host-resolver.ts): A and AAAA both asked, any failure gives no address.
import { describe, expect, it } from 'vitest';
import { dohHostResolver } from '../../lib/upstream/dns/doh-host-resolver.ts';

const RESOLVER = 'https://dns.example/dns-query';

function fakeFetch(answers: Record<string, { status?: number; body: unknown }>) {
  const asked: string[] = [];
  const fetch = ((input: RequestInfo | URL) => {
    const url = new URL(String(input));
    const type = url.searchParams.get('type') ?? '';
    asked.push(`${url.searchParams.get('name')} ${type}`);
    const answer = answers[type];
    if (answer === undefined) return Promise.reject(new Error('unreachable'));
    return Promise.resolve(new Response(JSON.stringify(answer.body), { status: answer.status ?? 200 }));
  }) as typeof globalThis.fetch;
  return { fetch, asked };
}

describe('dohHostResolver', () => {
  it('gives every A and AAAA address, CNAMEs left out', async () => {
    const { fetch, asked } = fakeFetch({
      A: {
        body: {
          Status: 0,
          Answer: [
            { type: 5, data: 'edge.example.' },
            { type: 1, data: '93.184.216.34' },
          ],
        },
      },
      AAAA: { body: { Status: 0, Answer: [{ type: 28, data: '2606:2800:220:1:248:1893:25c8:1946' }] } },
    });
    expect(await dohHostResolver(RESOLVER, { fetch })('hooks.example.com')).toEqual([
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
    ]);
    expect(asked.sort()).toEqual(['hooks.example.com A', 'hooks.example.com AAAA']);
  });

  it('gives none for NXDOMAIN', async () => {
    const { fetch } = fakeFetch({ A: { body: { Status: 3 } }, AAAA: { body: { Status: 3 } } });
    expect(await dohHostResolver(RESOLVER, { fetch })('nowhere.example.com')).toEqual([]);
  });

  it.each([
    ['one question unanswered', { A: { body: { Status: 0, Answer: [{ type: 1, data: '93.184.216.34' }] } } }],
    ['SERVFAIL', { A: { body: { Status: 2 } }, AAAA: { body: { Status: 0 } } }],
    ['a 500', { A: { status: 500, body: {} }, AAAA: { body: { Status: 0 } } }],
    ['nonsense', { A: { body: 'not json' }, AAAA: { body: { Status: 0 } } }],
  ])('gives none when %s, rather than judge the name by half its addresses', async (_, answers) => {
    const { fetch } = fakeFetch(answers);
    expect(await dohHostResolver(RESOLVER, { fetch })('hooks.example.com')).toEqual([]);
  });
});

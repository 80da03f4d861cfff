// The mounts' prefix matcher (lib/http/prefix-matcher.ts) says what Hono's own router, given `prefix` and `prefix/*`
// for each, says: the same prefixes for every path, in the same order.
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { mergePath } from 'hono/utils/url';
import { describe, expect, it } from 'vitest';
import { prefixMatcher } from '../../lib/http/prefix-matcher.ts';

// Prefixes of the shapes functions/app.ts mounts: nested, repeated, with a parameter first or last, a dotted one.
const PREFIXES = [
  '/healthz',
  '/auth',
  '/.well-known',
  '/auth/handoff',
  '/auth',
  '/orgs/:orgId/members',
  '/orgs/:orgId/members',
  '/auth/mfa',
  '/orgs/:orgId/syrve/connections',
  '/invites',
  '/orgs/:orgId',
  '/ops/users/:userId',
  '/:any/b',
];

const PATHS = [
  '/',
  '',
  '/healthz',
  '/healthz/',
  '/healthzx',
  '/healthz/deep/er',
  '/auth',
  '/auth/',
  '/auth/login',
  '/auth/handoff',
  '/auth/handoff/exchange',
  '/auth/mfa/verify',
  '/authx/mfa',
  '/.well-known/jwks.json',
  '/orgs',
  '/orgs/',
  '/orgs/o1',
  '/orgs/o1/',
  '/orgs//members',
  '/orgs/o1/members',
  '/orgs/o1/members/u1/sessions',
  '/orgs/o1/syrve/connections/c1/stores',
  '/orgs/o1/syrve',
  '/invites/accept',
  '/ops/users',
  '/ops/users/u1',
  '/ops/users/u1/sessions',
  '/x/b',
  '/x/b/c',
  '/b',
  '/size-probe',
  '/Auth/login',
  '/auth%2Flogin',
];

/** What mountOnFirstRequest asked before: Hono's default router, each prefix added as itself and with `/*`. */
function honoMatcher(prefixes: string[]): (path: string) => number[] {
  const router = new SmartRouter<number>({ routers: [new RegExpRouter(), new TrieRouter()] });
  prefixes.forEach((prefix, index) => {
    router.add('ALL', prefix, index);
    router.add('ALL', mergePath(prefix, '*'), index);
  });
  return (path) => [...new Set(router.match('ALL', path)[0].map(([index]) => index))].sort((a, b) => a - b);
}

describe('prefixMatcher', () => {
  it('finds the prefixes Hono’s router finds, for every path', () => {
    const ours = prefixMatcher(PREFIXES);
    const hono = honoMatcher(PREFIXES);
    for (const path of PATHS) expect([path, ours(path)]).toEqual([path, hono(path)]);
  });

  it('gives the indexes in the prefixes’ order', () => {
    expect(prefixMatcher(['/a', '/:p', '/a/b'])('/a/b/c')).toEqual([0, 1, 2]);
  });
});

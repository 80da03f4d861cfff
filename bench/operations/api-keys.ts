// The API key check alone (lib/auth/api-keys/check-api-key.ts, called with the app's own Deps, through the same proxies):
// a hit (target: 1 main-store round trip, no PostgreSQL) and an unknown key whose refusal is cached (the same).
import { checkApiKey } from '../../lib/auth/api-keys/check-api-key.ts';
import { apiKeyChecksum } from '../../lib/auth/api-keys/key-format.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import type { BenchStack } from '../stack.ts';

const ROUTE = 'GET /orgs/{orgId}/members';

async function keyOf(stack: BenchStack, organizationId: string, token: string): Promise<string> {
  const response = await stack.request('POST', `/orgs/${organizationId}/api-keys`, {
    token,
    body: { name: 'bench', scopes: ['members:read'], rateLimitPerMinute: 100_000 },
  });
  await expectStatus('apikey.create', response.clone(), 201);
  return ((await response.json()) as { key: string }).key;
}

export const apiKeyVerifyHitBench: OperationBench = {
  name: 'apikey.verify.hit',
  roundTrips: { redis: 1, revocation: 0, pg: 0 },
  describe:
    "a key's check and count on a warm entry: one script on the organisation's slot (the entry, the scope, the key's limit beside the route and tenant counters); the organisation's key seq read beside it at most once a second",
  async prepare(stack) {
    const org = await stack.seedOrganization({ bound: true });
    const key = await keyOf(stack, org.organizationId, org.adminToken);
    const request = {
      key,
      organizationId: org.organizationId,
      scope: 'members:read',
      route: ROUTE,
      clientIp: '127.0.0.1',
      correlationId: 'bench',
    };
    return async () => {
      const check = await checkApiKey(stack.deps, request);
      if (check.kind !== 'accepted') throw new Error(`apikey.verify.hit: ${check.kind}`);
    };
  },
};

export const apiKeyVerifyUnknownBench: OperationBench = {
  name: 'apikey.verify.unknown',
  roundTrips: { redis: 1, revocation: 0, pg: 0 },
  describe: 'a well-formed key unknown in the organisation, its refusal cached (60 s): the same one script, no PostgreSQL',
  async prepare(stack) {
    const org = await stack.seedOrganization({ bound: true });
    const random = 'U'.repeat(32);
    const key = `rsk_${random}${apiKeyChecksum(random)}`;
    // Each call from an address of its own: the per-address refusal limit (60 in 15 minutes) is not what is measured.
    const address = (i: number) => `127.${Math.floor(i / 65_536) % 256}.${Math.floor(i / 256) % 256}.${i % 256}`;
    return async (i) => {
      const check = await checkApiKey(stack.deps, {
        key,
        organizationId: org.organizationId,
        scope: 'members:read',
        route: ROUTE,
        clientIp: address(i),
        correlationId: 'bench',
      });
      if (check.kind !== 'refused') throw new Error(`apikey.verify.unknown: ${check.kind}`);
    };
  },
};

const COUNT_PATH = (organizationId: string) => `/orgs/${organizationId}/members/count`;

/** The same read with either credential, so the key's whole request (HTTP, routing, the check, the route) is compared. */
function memberCountBench(name: string, credential: 'key' | 'token'): OperationBench {
  return {
    name,
    describe: `GET /orgs/{orgId}/members/count through the app with ${credential === 'key' ? 'an API key (members:read)' : "a person's bound access token"}, the same route and organisation shape`,
    async prepare(stack) {
      const org = await stack.seedOrganization({ bound: true });
      const token = credential === 'key' ? await keyOf(stack, org.organizationId, org.adminToken) : org.adminToken;
      return async () => expectStatus(name, await stack.request('GET', COUNT_PATH(org.organizationId), { token }), 200);
    },
  };
}

export const memberCountByKeyBench = memberCountBench('apikey.request.members-count', 'key');
export const memberCountByTokenBench = memberCountBench('apikey.request.members-count.bearer', 'token');

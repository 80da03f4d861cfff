// The single-use primitive and the reset request: consume (target 1 Redis round trip), and a reset request for a known
// and an unknown email side by side (their timings should match: the delivery runs after the answer).
import { uuidv7 } from 'uuidv7';
import * as z from 'zod';
import { consumeHandoff } from '../../lib/auth/handoff/consume-handoff.ts';
import { handoffSchema } from '../../lib/keys/index.ts';
import { singleUse } from '../../lib/runtime/single-use/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import type { BenchStack } from '../stack.ts';

const benchValue = z.strictObject({ userId: z.uuid(), correlationId: z.string() });

export const singleUseConsumeBench: OperationBench = {
  name: 'single-use.consume',
  roundTrips: { redis: 1, revocation: 0, pg: 0 },
  describe: 'one consume of a fresh handoff code straight through lib/runtime/single-use: the GET+DEL script',
  async prepare(stack, count) {
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) {
      tokens.push(await singleUse.issue(stack.deps, 'sso-handoff', benchValue, { userId: uuidv7(), correlationId: 'bench' }));
    }
    return async (i) => {
      const outcome = await singleUse.consume(stack.deps, 'sso-handoff', benchValue, tokens[i] as string);
      if (!outcome.ok) throw new Error('single-use.consume: a fresh token did not consume');
    };
  },
};

export const handoffConsumeCountedBench: OperationBench = {
  name: 'single-use.consume-counted',
  describe:
    "the handoff exchange's consume for an app without a client secret (lib/auth/handoff/consume-handoff.ts): the (audience, address) counter and the GET+DEL in one script",
  async prepare(stack, count) {
    const codes: string[] = [];
    for (let i = 0; i < count; i++) {
      codes.push(
        await singleUse.issue(stack.deps, 'sso-handoff', handoffSchema, {
          userId: uuidv7(),
          sessionId: uuidv7(),
          email: 'bench@bench.test',
          audience: 'bench',
          issuedAtUtc: new Date().toISOString(),
          correlationId: 'bench',
        }),
      );
    }
    return async (i) => {
      // An address of its own per call (10.202.<hi>.<lo>): the limit (600 per 15 minutes) never answers instead.
      const clientIp = `10.202.${(i >> 8) & 255}.${i & 255}`;
      const outcome = await consumeHandoff(stack.deps, {
        code: codes[i] as string,
        audience: 'bench',
        clientIp,
        clientAuthenticated: false,
      });
      if (outcome.kind !== 'consumed') throw new Error('single-use.consume-counted: a fresh code did not consume');
    };
  },
};

/** `count` members of one organisation, so every known request has its own (organisation, email) throttle bucket. */
async function members(stack: BenchStack, count: number): Promise<{ organizationId: string; emails: string[] }> {
  const org = await stack.seedOrganization();
  const userIds = Array.from({ length: count }, () => uuidv7());
  const emails = userIds.map((userId) => `reset-${userId.slice(-12)}@bench.test`);
  // Two statements for all of them: fixtures, outside the proxies and the timed section.
  await stack.db.query('INSERT INTO users (id, email) SELECT * FROM unnest($1::uuid[], $2::text[])', [userIds, emails]);
  await stack.db.query(
    `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code)
     SELECT gen_random_uuid(), u, $2, NULL, 'Viewer' FROM unnest($1::uuid[]) AS u`,
    [userIds, org.organizationId],
  );
  return { organizationId: org.organizationId, emails };
}

function resetRequestBench(kind: 'known' | 'unknown'): OperationBench {
  return {
    name: `reset.request.${kind}`,
    describe: `POST /auth/password-reset for ${kind === 'known' ? 'a member' : 'an email nobody has'}: both throttle hits (per email, per address) sent together, then 202 (the delivery runs after the answer)`,
    async prepare(stack, count) {
      const { organizationId, emails } =
        kind === 'known'
          ? await members(stack, count)
          : {
              organizationId: (await stack.seedOrganization()).organizationId,
              emails: Array.from({ length: count }, () => `nobody-${uuidv7()}@bench.test`),
            };
      return async (i) => {
        // An address of its own per call (10.<200 or 201>.<hi>.<lo>): the per-address limit (30 an hour) never answers instead.
        const ip = `10.${kind === 'known' ? 200 : 201}.${(i >> 8) & 255}.${i & 255}`;
        const response = await stack.request('POST', '/auth/password-reset', {
          body: { organizationId, email: emails[i] },
          headers: { [TEST_CLIENT_IP_HEADER]: ip },
        });
        await expectStatus(`reset.request.${kind}`, response, 202);
      };
    },
  };
}

export const singleUseBenches: OperationBench[] = [
  singleUseConsumeBench,
  handoffConsumeCountedBench,
  resetRequestBench('known'),
  resetRequestBench('unknown'),
];

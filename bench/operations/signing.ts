// auth.context.get with ES256 tokens of the stored keys beside HS256 in one run: the same token on every call (the
// isolate's verified-token cache answers) and a fresh token per call (a signature verified by kid every call).
import { decodeJwt } from 'jose';
import { signAccessTokenFor } from '../../lib/auth/tokens/access-token.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { composeApp, type ComposedApp } from '../../local/stack/app.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import { BENCH_TOKEN_TTL_SECONDS, type BenchStack } from '../stack.ts';

// One ES256 instance per run, on the bench's own stores: its key ring is read once, as a deployed isolate's would be.
const es256Apps = new WeakMap<BenchStack, ComposedApp>();

function es256App(stack: BenchStack): ComposedApp {
  let composed = es256Apps.get(stack);
  if (composed === undefined) {
    composed = composeApp(
      { ...stack.appEnv, ACCESS_TOKEN_SIGNING: 'ES256', AUTH_TOKEN_ISSUER: 'https://bench.runstate.test/' },
      { logger: createJsonLogger(() => undefined) },
    );
    es256Apps.set(stack, composed);
  }
  return composed;
}

type Alg = 'HS256' | 'ES256';

/** A bound session's organisation and a token maker for it: HS256 as the bench mints them, ES256 as sign-in signs them. */
async function boundSession(stack: BenchStack, alg: Alg) {
  const org = await stack.seedOrganization({ bound: true });
  const sessionId = decodeJwt(org.adminToken).sid as string;
  const app = alg === 'ES256' ? es256App(stack) : undefined;
  const mint = async (): Promise<string> => {
    if (app === undefined) {
      return stack.token({
        userId: org.adminId,
        sessionId,
        email: org.adminEmail,
        organizationId: org.organizationId,
        expiresInSeconds: BENCH_TOKEN_TTL_SECONDS,
      });
    }
    const subject = { userId: org.adminId, sessionId, email: org.adminEmail, organizationId: org.organizationId };
    return (await signAccessTokenFor(app.deps, subject, { nowMs: Date.now(), ttlSeconds: BENCH_TOKEN_TTL_SECONDS })).token;
  };
  const request = app?.request ?? stack.request;
  const token = await mint();
  const body = { organizationId: org.organizationId, locationId: org.locationId };
  await expectStatus('auth.context.put', await request('PUT', '/auth/context', { token, body }), 200);
  return { token, mint, request };
}

function sameToken(alg: 'ES256'): OperationBench {
  const name = `auth.context.get.${alg.toLowerCase()}`;
  return {
    name,
    describe: `auth.context.get with an ${alg} token of the stored keys: the same token each call (verified once, then from the isolate's cache)`,
    async prepare(stack) {
      const { token, request } = await boundSession(stack, alg);
      return async () => expectStatus(name, await request('GET', '/auth/context', { token }), 200);
    },
  };
}

function freshToken(alg: Alg): OperationBench {
  const name = `auth.context.get.fresh-token${alg === 'ES256' ? '.es256' : ''}`;
  return {
    name,
    describe: `auth.context.get with a new ${alg} token each call (made untimed): its signature is verified every call${alg === 'ES256' ? ', the key found by kid in memory' : ''}`,
    async prepare(stack, count) {
      const { mint, request } = await boundSession(stack, alg);
      const tokens: string[] = [];
      for (let i = 0; i < count; i++) tokens.push(await mint());
      return async (i) => expectStatus(name, await request('GET', '/auth/context', { token: tokens[i] as string }), 200);
    },
  };
}

export const signingBenches: OperationBench[] = [sameToken('ES256'), freshToken('HS256'), freshToken('ES256')];

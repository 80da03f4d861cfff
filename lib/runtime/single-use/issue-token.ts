// singleUse.issue: a fresh token and its value under the token's hash, with the kind's exact TTL.
import type * as z from 'zod';
import { SINGLE_USE_TTL_SECONDS, type SingleUseKind } from '../../keys/index.ts';
import { encodeJson, redisCall } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { newSingleUseToken, singleUseKey } from './single-use-token.ts';

/** Returns the token, to be shown or sent once; Redis keeps only its hash (the key) and the schema-checked value. */
export async function issueToken<S extends z.ZodType>(deps: Deps, kind: SingleUseKind, schema: S, value: z.input<S>): Promise<string> {
  const token = newSingleUseToken(kind);
  const key = (await singleUseKey(deps.keys, kind, token))!;
  const json = encodeJson(schema, value);
  // NX: 256 random bits never collide, but a retried SET must never overwrite a value someone else was given.
  // retrySafe: a fresh key, so landing twice is the same one write.
  await redisCall(`single-use.issue.${kind}`, () => deps.redis.retrySafe.set(key, json, { ex: SINGLE_USE_TTL_SECONDS[kind], nx: true }));
  return token;
}

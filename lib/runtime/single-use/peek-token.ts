// singleUse.peek: reads a token's value without consuming it, for the flows that must attribute a failure (OIDC audit).
import type * as z from 'zod';
import type { SingleUseKind } from '../../keys/index.ts';
import { decodeJson, redisCall } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { singleUseKey } from './single-use-token.ts';

export async function peekToken<S extends z.ZodType>(
  deps: Deps,
  kind: SingleUseKind,
  schema: S,
  token: string,
): Promise<z.output<S> | undefined> {
  const key = await singleUseKey(deps.keys, kind, token);
  if (key === undefined) return undefined;
  return decodeJson(schema, await redisCall(`single-use.peek.${kind}`, () => deps.redis.retrySafe.get<string>(key)));
}

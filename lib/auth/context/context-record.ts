// The active context as stored (registry row activeContext): which organisation and outlet a session works in, as a hint.
import type { Deps } from '../../deps.ts';

// The stored shape is declared with its key (lib/keys/defs/context.ts).
export { activeContextSchema, type ActiveContext } from '../../keys/index.ts';

export const contextKey = (deps: Pick<Deps, 'keys'>, session: { userId: string; sessionId: string }) =>
  deps.keys.activeContext(session.userId, session.sessionId);

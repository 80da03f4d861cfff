// The typed Hono context every function shares: per-request dependencies, correlation id and, after auth, the principal.
import type { Principal } from '../auth/claims.ts';
import type { Deps } from '../deps.ts';

export interface HonoEnv {
  Variables: {
    deps: Deps;
    correlationId: string;
    principal: Principal;
  };
}

// The typed Hono context every function shares: per-request dependencies, correlation id and, after auth, the token being checked.
import type { Authentication } from '../auth/authentication.ts';
import type { Operator } from '../auth/operator.ts';
import type { Deps } from '../deps.ts';

export interface HonoEnv {
  Variables: {
    deps: Deps;
    correlationId: string;
    /** Set by requireAuth: the verified token, its revocation check under way. */
    auth: Authentication;
    /** The API key scope the matched route declares (lib/http/function-factory.ts); unset: no key reaches it. */
    routeScope: string | undefined;
    /** Set by requireOperator on the /ops routes: who the operator is. */
    operator: Operator;
    /** The caller's address as the runtime's edge reports it (socket, cf-connecting-ip, API Gateway); unset when unknown. */
    clientIp: string | undefined;
    /** Runs work after the response where the runtime allows (Workers' waitUntil, Node); unset: the handler awaits it. */
    defer: ((work: Promise<unknown>) => void) | undefined;
  };
}

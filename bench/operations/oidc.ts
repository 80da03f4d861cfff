// The OIDC start: the organisation's provider check in PostgreSQL, the sign-in IP throttle, the state with its random
// PKCE verifier, nonce and browser hash, and the authorization URL, against the local OpenID provider (discovery cached).
import { startOidcSignIn } from '../../lib/auth/oidc/start-sign-in.ts';
import type { Deps } from '../../lib/deps.ts';
import { startLocalOidcProvider } from '../../local/oidc/provider.ts';
import type { BenchCall, OperationBench } from '../operation.ts';

const PROVIDER_ID = 'local';

export const oidcStartBench: OperationBench = {
  name: 'oidc.start',
  roundTrips: { redis: 2, revocation: 0, pg: 1 },
  describe:
    'startOidcSignIn straight through lib/auth/oidc (what GET /auth/oidc/{provider}/start runs): the provider check (one PostgreSQL read), the login-ip throttle hit beside the cached discovery, the state SET; Redis target 2',
  async prepare(stack) {
    const provider = await startLocalOidcProvider({ redirectUri: `http://127.0.0.1:8787/auth/oidc/${PROVIDER_ID}/callback` });
    // The bench app has no OIDC_PROVIDERS: this call's deps carry the local provider, everything else is the stack's.
    const deps: Deps = { ...stack.deps, config: { ...stack.deps.config, oidcProviders: [provider.providerEntry(PROVIDER_ID)] } };
    const org = await stack.seedOrganization();
    await stack.db.query('INSERT INTO oidc_provider_organizations (organization_id, provider_id) VALUES ($1, $2)', [
      org.organizationId,
      PROVIDER_ID,
    ]);
    const call: BenchCall = async (i) => {
      // An address of its own per call (10.6.<hi>.<lo>), so the login-ip throttle (100 per 15 minutes) never answers instead.
      const outcome = await startOidcSignIn(deps, {
        providerId: PROVIDER_ID,
        organizationId: org.organizationId,
        clientIp: `10.6.${(i >> 8) & 255}.${i & 255}`,
        correlationId: 'bench',
      });
      if (!outcome.ok) throw new Error(`oidc.start: expected a redirect, got ${outcome.reason}`);
    };
    call.finish = provider.close;
    return call;
  },
};

// A real OpenID provider (oidc-provider) on 127.0.0.1 for npm start and the tests: one confidential client with a secret
// made at start, accounts found by email with `email_verified: true`, the authorization code flow with PKCE and nothing else.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Account, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { handleInteraction, interactionPath } from './interactions.ts';
import type { OidcProviderConfig } from '../../lib/config/index.ts';

export interface LocalOidcProviderOptions {
  /** The app's callback, registered as the client's only redirect URI. */
  redirectUri: string;
  /** Emails that can sign in (typed into the provider's login form; it asks for a password and ignores it). */
  accounts?: readonly string[];
  /** Defaults to a free port. */
  port?: number;
}

export interface LocalOidcProvider {
  issuer: string;
  clientId: string;
  redirectUri: string;
  /** One more account; `emailVerified: false` makes the provider vouch for an email it has not checked. */
  addAccount(email: string, options?: { emailVerified?: boolean }): void;
  /** The OIDC_PROVIDERS entry for this provider (it holds the client secret: pass it to the app, never print it). */
  providerEntry(id: string): OidcProviderConfig;
  close(): Promise<void>;
}

export const LOCAL_OIDC_CLIENT_ID = 'runstate-local';

/** Starts the provider; it answers only requests addressed to its own loopback name (no DNS rebinding). */
export async function startLocalOidcProvider(options: LocalOidcProviderOptions): Promise<LocalOidcProvider> {
  const accounts = new Map<string, { emailVerified: boolean }>();
  const addAccount = (email: string, { emailVerified = true } = {}) => void accounts.set(email.trim().toLowerCase(), { emailVerified });
  for (const email of options.accounts ?? []) addAccount(email);

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  const issuer = `http://${host}`;
  const clientSecret = randomBytes(32).toString('base64url');
  const provider = new Provider(issuer, await configuration(options.redirectUri, clientSecret, accounts));
  const handle = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // A page on another origin reaching this server through a rebound DNS name carries that name as Host.
    if (req.headers.host !== host) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end('this provider answers only to its own loopback address');
      return;
    }
    void handleInteraction(provider, req, res).then((answered) => {
      if (!answered) void handle(req, res);
    });
  });

  return {
    issuer,
    clientId: LOCAL_OIDC_CLIENT_ID,
    redirectUri: options.redirectUri,
    addAccount,
    providerEntry: (id) => ({ id, issuer, clientId: LOCAL_OIDC_CLIENT_ID, clientSecret, redirectUri: options.redirectUri }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error !== undefined ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function configuration(
  redirectUri: string,
  clientSecret: string,
  accounts: Map<string, { emailVerified: boolean }>,
): Promise<Configuration> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: `local-${randomBytes(6).toString('hex')}`, alg: 'RS256', use: 'sig' };
  const subjectSalt = randomBytes(16);
  return {
    clients: [
      {
        client_id: LOCAL_OIDC_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
        // An opaque `sub` per client, as real providers give: the app links by the verified email, never by sub.
        subject_type: 'pairwise',
      },
    ],
    subjectTypes: ['pairwise'],
    pairwiseIdentifier: (_ctx, accountId, client) =>
      createHash('sha256')
        .update(subjectSalt)
        .update(`${client.sectorIdentifier ?? ''}\n${accountId}`)
        .digest('hex'),
    // The login form's "login" field (local/oidc/interactions.ts) is the account id: the email as typed; an unknown one does not sign in.
    findAccount: (_ctx: KoaContextWithOIDC, id: string): Account | undefined => {
      const account = accounts.get(id.trim().toLowerCase());
      if (account === undefined) return undefined;
      return { accountId: id, claims: () => ({ sub: id, email: id.trim().toLowerCase(), email_verified: account.emailVerified }) };
    },
    scopes: ['openid', 'email'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // The email goes into the ID token itself (the app reads no userinfo), as most providers do for scope "email".
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    pkce: { required: () => true },
    // Each setting below that oidc-provider would otherwise default, and warn about on every start, is given:
    // cookie keys and a signing key made at start, its in-memory store (everything is forgotten on stop, as intended
    // here), and login and consent pages of our own (local/oidc/interactions.ts) in place of its development ones.
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: { keys: [signingKey] },
    adapter: createMemoryAdapter(),
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      resourceIndicators: { enabled: false },
      userinfo: { enabled: false },
    },
    // No page of another origin may call it from a browser.
    clientBasedCORS: () => false,
    ttl: { AuthorizationCode: 60, IdToken: 300, AccessToken: 300, Interaction: 600, Session: 3600, Grant: 3600 },
    renderError: (ctx, out) => {
      ctx.type = 'text/plain';
      ctx.body = `${out.error}: ${out.error_description ?? ''}`;
    },
  };
}

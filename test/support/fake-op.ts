// A small fake OpenID provider for the ID-token checks a real provider never fails: it serves discovery, its JWKS, an
// authorization endpoint that approves at once, and a token endpoint whose ID token is wrong in the way the test picks.
// It refuses everything else: another Host, an unknown path or method, a bad client, an unknown or reused code, a wrong
// PKCE verifier or redirect URI.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { OidcProviderConfig } from '../../lib/config/index.ts';

/** What the next ID token gets wrong; `ok` is the control that signs in. */
export type FakeOpMode = 'ok' | 'wrong-nonce' | 'wrong-audience' | 'bad-signature' | 'expired';

export interface FakeOp {
  issuer: string;
  mode: FakeOpMode;
  /** The email the next ID token names (verified). */
  email: string;
  /** Token requests answered with an ID token, to show the exchange really happened. */
  readonly tokensIssued: number;
  /** Every code exchanged, in order: the state it was issued with, the challenge /authorize got and the verifier /token got. */
  readonly exchanges: readonly Exchange[];
  providerEntry(id: string, redirectUri: string): OidcProviderConfig;
  close(): Promise<void>;
}

interface PendingCode {
  redirectUri: string;
  challenge: string;
  nonce: string;
  state: string;
}

export interface Exchange {
  state: string;
  codeChallenge: string;
  codeVerifier: string;
}

export async function startFakeOp(): Promise<FakeOp> {
  const clientId = 'fake-client';
  const clientSecret = randomBytes(24).toString('base64url');
  const signing = await generateKeyPair('RS256', { extractable: true });
  // Same kid, another key: a token it signs finds "its" key in the JWKS and fails only the signature check.
  const impostor = await generateKeyPair('RS256');
  const kid = 'fake-key';
  const publicJwk: JWK = { ...(await exportJWK(signing.publicKey)), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, PendingCode>();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `http://${host}`;
  const state = { mode: 'ok' as FakeOpMode, email: 'nobody@example.test', tokensIssued: 0 };
  const exchanges: Exchange[] = [];

  const json = (res: ServerResponse, status: number, body: unknown): void =>
    void res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));

  async function idToken(nonce: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims = { email: state.email, email_verified: true, nonce: state.mode === 'wrong-nonce' ? 'another-nonce' : nonce };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(issuer)
      .setSubject('fake-subject')
      .setAudience(state.mode === 'wrong-audience' ? 'another-client' : clientId)
      .setIssuedAt(state.mode === 'expired' ? now - 7_200 : now)
      .setExpirationTime(state.mode === 'expired' ? now - 3_600 : now + 300)
      .sign(state.mode === 'bad-signature' ? impostor.privateKey : signing.privateKey);
  }

  /** client_secret_basic: each half form-urlencoded before base64 (RFC 6749 §2.3.1). */
  function clientAuthenticated(header: string | undefined): boolean {
    if (header?.startsWith('Basic ') !== true) return false;
    const [id = '', secret = ''] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    const decode = (text: string) => decodeURIComponent(text.replaceAll('+', ' '));
    return decode(id) === clientId && decode(secret) === clientSecret;
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!clientAuthenticated(req.headers.authorization)) return json(res, 401, { error: 'invalid_client' });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const code = form.get('code') ?? '';
    const pending = codes.get(code);
    codes.delete(code);
    const verifier = form.get('code_verifier') ?? '';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (form.get('grant_type') !== 'authorization_code' || pending === undefined) return json(res, 400, { error: 'invalid_grant' });
    if (pending.challenge !== challenge || pending.redirectUri !== form.get('redirect_uri'))
      return json(res, 400, { error: 'invalid_grant' });
    state.tokensIssued++;
    exchanges.push({ state: pending.state, codeChallenge: pending.challenge, codeVerifier: verifier });
    json(res, 200, {
      access_token: randomBytes(16).toString('base64url'),
      token_type: 'Bearer',
      expires_in: 300,
      id_token: await idToken(pending.nonce),
    });
  }

  function authorize(url: URL, res: ServerResponse): void {
    const p = url.searchParams;
    const redirectUri = p.get('redirect_uri');
    if (
      p.get('client_id') !== clientId ||
      p.get('response_type') !== 'code' ||
      p.get('code_challenge_method') !== 'S256' ||
      redirectUri === null
    ) {
      return json(res, 400, { error: 'invalid_request' });
    }
    const code = randomBytes(24).toString('base64url');
    codes.set(code, { redirectUri, challenge: p.get('code_challenge') ?? '', nonce: p.get('nonce') ?? '', state: p.get('state') ?? '' });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', p.get('state') ?? '');
    res.writeHead(302, { location: back.href }).end();
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.host !== host) return void res.writeHead(421).end();
    const url = new URL(req.url ?? '/', issuer);
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (route === 'GET /jwks') return json(res, 200, { keys: [publicJwk] });
    if (route === 'GET /authorize') return authorize(url, res);
    if (route === 'POST /token') return void token(req, res).catch(() => json(res, 500, { error: 'server_error' }));
    json(res, 404, { error: 'not_found' });
  });

  return {
    issuer,
    get mode() {
      return state.mode;
    },
    set mode(mode: FakeOpMode) {
      state.mode = mode;
    },
    get email() {
      return state.email;
    },
    set email(email: string) {
      state.email = email;
    },
    get tokensIssued() {
      return state.tokensIssued;
    },
    exchanges,
    providerEntry: (id, redirectUri) => ({ id, issuer, clientId, clientSecret, redirectUri }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error !== undefined ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

// The local provider's own login and consent pages, in place of oidc-provider's development pages (devInteractions,
// which warns on every start): the same forms — a login field taking the account's email, a password field it never
// checks, an approve button — so a browser, and test/support/oidc.ts, go through them as before.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';

const PATH = /^\/interaction\/([A-Za-z0-9_-]+)$/;
const MAX_FORM_BYTES = 4096;

/** Where the provider sends the browser for a prompt (its `interactions.url`). */
export function interactionPath(uid: string): string {
  return `/interaction/${uid}`;
}

/** Answers the request when it is one of the pages' (true), or leaves it to the provider (false). */
export async function handleInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const uid = PATH.exec(new URL(req.url ?? '/', 'http://local').pathname)?.[1];
  if (uid === undefined) return false;
  try {
    // Reads the interaction cookie, scoped to this very path: a page of another interaction finds nothing.
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('interaction mismatch');
    if (req.method === 'GET') page(res, details.prompt.name, uid);
    else if (req.method === 'POST') await submit(provider, req, res, details, await readForm(req));
    else res.writeHead(405, { allow: 'GET, POST' }).end();
  } catch {
    // An expired or unknown interaction, or a form that does not fit the prompt: say so, quote nothing.
    if (!res.headersSent)
      res.writeHead(400, { 'content-type': 'text/plain' }).end('this sign-in page expired or was not asked for; start again');
  }
  return true;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

function page(res: ServerResponse, prompt: string, uid: string): void {
  const action = interactionPath(uid);
  const body =
    prompt === 'login'
      ? `<h1>Sign in</h1>
<p>Any password: this local provider checks only the login, an email it holds an account for.</p>
<form autocomplete="off" action="${action}" method="post">
<input type="hidden" name="prompt" value="login"/>
<input required type="email" name="login" placeholder="email" autofocus>
<input required type="password" name="password" placeholder="any password">
<button type="submit">Sign in</button>
</form>`
      : `<h1>Approve</h1>
<p>runstate asks for your email address.</p>
<form autocomplete="off" action="${action}" method="post">
<input type="hidden" name="prompt" value="consent"/>
<button autofocus type="submit">Continue</button>
</form>`;
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(`<!doctype html>\n<html><head><meta charset="utf-8"><title>Local OpenID provider</title></head><body>\n${body}\n</body></html>`);
}

async function submit(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  details: Details,
  form: URLSearchParams,
): Promise<void> {
  const prompt = details.prompt.name;
  if (form.get('prompt') !== prompt) throw new Error('prompt mismatch');
  let result: InteractionResults;
  if (prompt === 'login') {
    // findAccount refuses an email it does not hold, so an unknown login ends at the app's callback as a refusal.
    result = { login: { accountId: form.get('login') ?? '' } };
  } else if (prompt === 'consent') {
    const { accountId } = details.session ?? {};
    if (accountId === undefined) throw new Error('no session');
    const grant =
      details.grantId !== undefined
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    if (grant === undefined) throw new Error('grant gone');
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims !== undefined) grant.addOIDCClaims(missing.missingOIDCClaims);
    result = { consent: { grantId: await grant.save() } };
  } else {
    throw new Error('unknown prompt');
  }
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: prompt === 'consent' });
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > MAX_FORM_BYTES) throw new Error('form too large');
  }
  return new URLSearchParams(text);
}

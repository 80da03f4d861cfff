// A page the server renders with one inline script, which its Content-Security-Policy allows by SHA-256 and nothing
// else: the reset page (functions/password-reset/page.ts) and the invite page (functions/invites/page.ts).

export interface PinnedScriptPage {
  html: string;
  contentSecurityPolicy: string;
}

async function sha256Base64(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest));
}

/**
 * The page with `script` inlined where `html` says `<script></script>`. The hash is computed from the served source at
 * first use, so it cannot drift from it; `connect-src 'self'` is the page's one way out, and no form, frame or base.
 */
export function pinnedScriptPage(script: string, html: string): () => Promise<PinnedScriptPage> {
  if (html.split('<script></script>').length !== 2) throw new Error('pinnedScriptPage: the markup needs exactly one <script></script>');
  const page = html.replace('<script></script>', () => `<script>${script}</script>`);
  let hash: Promise<string> | undefined;
  return async () => {
    hash ??= sha256Base64(script);
    return {
      html: page,
      contentSecurityPolicy: `default-src 'none'; script-src 'sha256-${await hash}'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    };
  };
}

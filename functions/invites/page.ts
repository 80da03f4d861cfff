// The page an emailed invitation link opens (INVITE_LINK_BASE + #token=…): a newcomer chooses a password and joins
// (POST /invites/register); someone with an account signs in (POST /auth/login, and POST /auth/mfa/verify when asked)
// and accepts (POST /invites/accept). The token stays in the fragment, which no server and no Referer sees; the script
// takes it out of the address bar at once and keeps it, and any access token, in memory only. One script, pinned by its
// hash in the CSP (lib/http/pinned-script-page.ts); nothing inline besides it.
import { pinnedScriptPage } from '../../lib/http/pinned-script-page.ts';

// Plain browser JavaScript in a template literal: no backticks, no backslashes, no dollar-brace in it.
const SCRIPT = `
const token = new URLSearchParams(location.hash.slice(1)).get('token');
history.replaceState(null, '', location.pathname);
// Another link opened in this tab changes only the fragment, which runs no script: load it afresh to read it.
addEventListener('hashchange', () => location.reload());
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const byId = (id) => document.getElementById(id);
const register = byId('register');
const signIn = byId('sign-in');
const mfa = byId('mfa');
let challengeToken = null;

function say(text) {
  byId('error').textContent = '';
  byId('status').textContent = text;
}
function fail(text) {
  byId('status').textContent = '';
  byId('error').textContent = text;
}
function messageOf(result) {
  return result.body && result.body.error ? result.body.error.message : 'The request failed (HTTP ' + result.status + ').';
}
function codeOf(result) {
  return result.body && result.body.error ? result.body.error.code : '';
}

// No cookie goes or comes back: the page's only credentials are the ones it holds in these variables.
async function call(method, path, body, accessToken) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (accessToken) headers.authorization = 'Bearer ' + accessToken;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  let parsed = null;
  try {
    parsed = await response.json();
  } catch {
    parsed = null;
  }
  return { status: response.status, body: parsed };
}

// The session opened only to accept ends here, so nothing outlives the page; a failure leaves it to expire.
async function endSession(accessToken) {
  await call('POST', '/auth/logout', undefined, accessToken).catch(() => undefined);
}

function finish(text) {
  for (const id of ['newcomer', 'existing']) byId(id).hidden = true;
  say(text);
  byId('status').focus();
}

function showExisting(message) {
  byId('newcomer').hidden = true;
  byId('existing').hidden = false;
  signIn.hidden = false;
  mfa.hidden = true;
  if (message) say(message);
  signIn.organization.focus();
}

function showNewcomer() {
  byId('existing').hidden = true;
  byId('newcomer').hidden = false;
  byId('status').textContent = '';
  byId('error').textContent = '';
  register.password.focus();
}

async function accept(accessToken) {
  const result = await call('POST', '/invites/accept', { token: token ?? '' }, accessToken);
  await endSession(accessToken);
  if (result.status === 200) return finish('You have joined the organisation as ' + result.body.roleCode + '.');
  // That session is over (and an MFA challenge spent): another try starts at the password again.
  signIn.hidden = false;
  mfa.hidden = true;
  fail(messageOf(result));
}

if (!token) {
  byId('newcomer').hidden = true;
  fail('This link holds no invitation. Open the link from your invitation email again.');
}

register.addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = register.password.value;
  register.password.value = '';
  say('Joining…');
  const result = await call('POST', '/invites/register', { token: token ?? '', password });
  if (result.status === 201) {
    await endSession(result.body.accessToken);
    finish('You have joined the organisation. Sign in with this email and the password you chose.');
  } else if (result.status === 409 && codeOf(result) === 'ACCOUNT_EXISTS') {
    showExisting(messageOf(result));
  } else {
    fail(messageOf(result));
  }
});

byId('have-account').addEventListener('click', () => showExisting(''));
byId('no-account').addEventListener('click', showNewcomer);

signIn.addEventListener('submit', async (event) => {
  event.preventDefault();
  let organizationId = signIn.organization.value.trim();
  const email = signIn.email.value;
  const password = signIn.password.value;
  signIn.reset();
  say('Signing in…');
  if (!UUID.test(organizationId)) {
    const resolved = await call('GET', '/public/tenants/resolve?slug=' + encodeURIComponent(organizationId.toLowerCase()));
    if (resolved.status !== 200) return fail(messageOf(resolved));
    organizationId = resolved.body.tenant.organizationId;
  }
  const result = await call('POST', '/auth/login', { organizationId, email, password });
  if (result.status !== 200) return fail(messageOf(result));
  if (result.body.status === 'mfa-required') {
    challengeToken = result.body.challengeToken;
    signIn.hidden = true;
    mfa.hidden = false;
    say('Enter the code from your authenticator app.');
    mfa.code.focus();
    return;
  }
  await accept(result.body.accessToken);
});

mfa.addEventListener('submit', async (event) => {
  event.preventDefault();
  const code = mfa.code.value.trim();
  mfa.reset();
  const result = await call('POST', '/auth/mfa/verify', { challengeToken: challengeToken ?? '', code });
  if (result.status !== 200) return fail(messageOf(result));
  challengeToken = null;
  await accept(result.body.accessToken);
});
`;

const HTML = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Join an organisation</title>
<h1>Join an organisation</h1>
<section id="newcomer" aria-labelledby="newcomer-title">
  <h2 id="newcomer-title">New here</h2>
  <form id="register">
    <label>Choose a password (12 to 256 characters) <input name="password" type="password" autocomplete="new-password" minlength="12" maxlength="256" required></label>
    <button type="submit">Choose a password and join</button>
  </form>
  <p><button id="have-account" type="button">I already have an account</button></p>
</section>
<section id="existing" aria-labelledby="existing-title" hidden>
  <h2 id="existing-title">Sign in to accept</h2>
  <p>Sign in with the email this invitation was sent to, in an organisation you already belong to; the invitation is then accepted for that account.</p>
  <form id="sign-in">
    <label>Organisation you belong to (slug or id) <input name="organization" autocomplete="organization" required></label>
    <label>Email <input name="email" type="email" autocomplete="username" required></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
    <button type="submit">Sign in and accept</button>
  </form>
  <form id="mfa" hidden>
    <label>Code from your authenticator app <input name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required></label>
    <button type="submit">Verify and accept</button>
  </form>
  <p><button id="no-account" type="button">I have no account yet</button></p>
</section>
<p id="status" role="status" tabindex="-1"></p>
<p id="error" role="alert"></p>
<script></script>
</html>
`;

export const invitePage = pinnedScriptPage(SCRIPT, HTML);

// The reset page a link opens: it reads the token from the URL fragment (which no server and no Referer ever sees) and
// posts it with the new password as JSON. One script, pinned by its hash in the CSP; nothing inline besides it.
import { pinnedScriptPage } from '../../lib/http/pinned-script-page.ts';

const SCRIPT = `
const form = document.getElementById('reset');
const status = document.getElementById('status');
const token = new URLSearchParams(location.hash.slice(1)).get('token');
history.replaceState(null, '', location.pathname);
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const response = await fetch('/auth/password-reset/confirm', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: token ?? '', newPassword: form.password.value }),
  });
  form.password.value = '';
  if (response.status === 204) status.textContent = 'Your password is changed. Every session of this account was signed out.';
  else status.textContent = (await response.json()).error.message;
});
`;

const HTML = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Choose a new password</title>
<h1>Choose a new password</h1>
<form id="reset">
  <label>New password (12 to 256 characters) <input name="password" type="password" autocomplete="new-password" minlength="12" maxlength="256" required></label>
  <button type="submit">Set password</button>
</form>
<p id="status" role="status"></p>
<script></script>
</html>
`;

export const resetPage = pinnedScriptPage(SCRIPT, HTML);

// The console's one HTML page: every view's markup, hidden until the script shows it. No inline script or style (the
// CSP allows neither); the CSRF token rides in a meta tag, the only value the server puts into the page.

import { API_KEY_SCOPES } from '../../auth/api-keys/scopes.ts';
import { EVENT_TYPES } from '../../events/event-types.ts';

const ROLE_OPTIONS = ['Viewer', 'Accountant', 'OrganizationAdmin'];

/** One checkbox per value, all named `name` (the script reads the checked ones). */
function checkboxes(name: string, values: readonly string[]): string {
  return values.map((value) => `<label class="check"><input type="checkbox" name="${name}" value="${value}"> ${value}</label>`).join('');
}

export interface ShellFacts {
  csrfToken: string;
  /** An access cookie came with the request: the page starts by loading the views, else at the sign-in form. */
  signedIn: boolean;
}

export function consoleShell(facts: ShellFacts): string {
  // Base64url by construction (lib/console/csrf.ts); checked so nothing else can ever be written into the attribute.
  if (!/^[A-Za-z0-9_-]+$/.test(facts.csrfToken)) throw new Error('consoleShell: the CSRF token is not base64url');
  const roles = ROLE_OPTIONS.map((role) => `<option value="${role}">${role}</option>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${facts.csrfToken}">
<meta name="signed-in" content="${facts.signedIn ? 'yes' : 'no'}">
<title>runstate console</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script defer src="/console/assets/webauthn.js"></script>
<script defer src="/console/assets/ua-parser.js"></script>
<script type="module" src="/console/assets/console.js"></script>
</head>
<body>
<header class="bar">
  <h1>runstate console</h1>
  <form id="context" class="context" hidden>
    <label>Organisation <select id="context-org" name="organizationId"></select></label>
    <label>Outlet <select id="context-outlet" name="locationId"></select></label>
    <button type="submit">Use</button>
    <output id="context-status" class="muted"></output>
  </form>
  <button id="sign-out" type="button" hidden>Sign out</button>
</header>
<p id="notice" class="notice" role="status" aria-live="polite"></p>
<main>
<section id="sign-in" aria-labelledby="sign-in-title" hidden>
  <h2 id="sign-in-title">Sign in</h2>
  <form id="password-form" class="stack">
    <label>Organisation (slug or id) <input name="organization" autocomplete="organization" required></label>
    <label>Email <input name="email" type="email" autocomplete="username" required></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
    <div class="row">
      <button type="submit">Sign in</button>
      <button id="passkey-sign-in" type="button">Sign in with a passkey</button>
    </div>
  </form>
  <form id="mfa-form" class="stack" hidden>
    <label>Code from your authenticator app <input name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required></label>
    <button type="submit">Verify</button>
  </form>
  <p id="sign-in-error" class="error" role="alert"></p>
</section>

<div id="views" class="views" hidden>
<section id="invites" aria-labelledby="invites-title">
  <h2 id="invites-title">Active invites</h2>
  <form id="invite-form" class="row">
    <label>Email <input name="email" type="email" required></label>
    <label>Role <select name="roleCode">${roles}</select></label>
    <label>Outlet <select name="locationId" id="invite-outlet"></select></label>
    <span class="field"><label for="invite-delivery">Delivery</label> <select name="delivery" id="invite-delivery"><option value="email" selected>Send by email</option><option value="none">Show the token here, once</option></select></span>
    <button type="submit">Create invite</button>
  </form>
  <p id="invites-error" class="error" role="alert"></p>
  <table>
    <caption class="muted">Soonest expiry first; the countdown runs live.</caption>
    <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Outlet</th><th scope="col">Expires in</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="invite-rows"></tbody>
  </table>
  <button id="invites-refresh" type="button">Refresh</button>
</section>

<section id="history" aria-labelledby="history-title">
  <h2 id="history-title">Invite history</h2>
  <p id="history-error" class="error" role="alert"></p>
  <table>
    <thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Invite</th><th scope="col">Outlet</th><th scope="col">Correlation id</th></tr></thead>
    <tbody id="history-rows"></tbody>
  </table>
  <div class="row">
    <button id="history-newest" type="button">Newest</button>
    <button id="history-older" type="button" disabled>Older</button>
  </div>
</section>

<section id="members" aria-labelledby="members-title">
  <h2 id="members-title">Members</h2>
  <p id="members-error" class="error" role="alert"></p>
  <table>
    <caption class="muted">One row per role held, in the order granted. Remove takes every role the person holds here.</caption>
    <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Outlet</th><th scope="col">Joined</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="member-rows"></tbody>
  </table>
  <div class="row">
    <button id="members-first" type="button">First page</button>
    <button id="members-next" type="button" aria-label="Next page of members" disabled>Next page</button>
  </div>
</section>

<section id="syrve" aria-labelledby="syrve-title">
  <h2 id="syrve-title">Syrve connections</h2>
  <p id="syrve-error" class="error" role="alert"></p>
  <table>
    <thead><tr><th scope="col">Connection</th><th scope="col">Session</th><th scope="col">Refresh lock</th><th scope="col">Reconnect circuit</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="syrve-rows"></tbody>
  </table>
  <button id="syrve-refresh" type="button">Refresh</button>
</section>

<section id="exports" aria-labelledby="exports-title">
  <h2 id="exports-title">Audit exports</h2>
  <button id="export-start" type="button">Start an export</button>
  <p id="exports-error" class="error" role="alert"></p>
  <ul id="export-list" class="plain"></ul>
  <button id="export-older" type="button" hidden>Older exports</button>
</section>

<section id="passkeys" aria-labelledby="passkeys-title">
  <h2 id="passkeys-title">Your passkeys</h2>
  <form id="passkey-form" class="row">
    <label>Name <input name="name" maxlength="64" placeholder="Passkey"></label>
    <label>Your password <input name="password" type="password" autocomplete="current-password"></label>
    <label>Authenticator code, if you use one <input name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6"></label>
    <button type="submit">Register a passkey</button>
  </form>
  <p class="muted">Registering or removing a passkey asks for your password (and your authenticator's code, if you use one).</p>
  <p id="passkeys-error" class="error" role="alert"></p>
  <table>
    <thead><tr><th scope="col">Name</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col">Transports</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="passkey-rows"></tbody>
  </table>
</section>

<section id="policy" aria-labelledby="policy-title">
  <h2 id="policy-title">Sign-in policy</h2>
  <form id="policy-form" class="stack" hidden>
    <fieldset>
      <legend>Ways members may sign in</legend>
      <label class="check"><input type="checkbox" name="method" value="password"> Password</label>
      <label class="check"><input type="checkbox" name="method" value="oidc"> Single sign-on (OpenID Connect)</label>
      <label class="check"><input type="checkbox" name="method" value="passkey"> Passkey</label>
    </fieldset>
    <label class="check"><input type="checkbox" name="requireMfa"> Require a second factor (an authenticator app or a passkey)</label>
    <button type="submit">Save policy</button>
  </form>
  <p id="policy-error" class="error" role="alert"></p>
</section>

<section id="webhooks" class="wide" aria-labelledby="webhooks-title">
  <h2 id="webhooks-title">Webhook endpoints</h2>
  <form id="webhook-form" class="stack" hidden>
    <div class="row">
      <label class="grow">URL <input name="url" type="url" maxlength="2048" placeholder="https://example.com/hooks/runstate" required></label>
      <label class="grow">Description (optional) <input name="description" maxlength="256"></label>
    </div>
    <fieldset>
      <legend>Events sent to it</legend>
      ${checkboxes('event', EVENT_TYPES)}
    </fieldset>
    <div class="row"><button type="submit">Add endpoint</button></div>
  </form>
  <p id="webhooks-error" class="error" role="alert"></p>
  <div id="webhook-list" hidden>
    <table class="fit">
      <caption class="muted">Oldest first. Each delivery is signed with the endpoint's secret; after a rotation the previous one signs beside it for 24 hours.</caption>
      <thead><tr><th scope="col">Endpoint</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Secret</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody id="webhook-rows"></tbody>
    </table>
    <button id="webhooks-refresh" type="button">Refresh</button>
  </div>
  <div id="deliveries" hidden>
    <h3 id="deliveries-title">Deliveries</h3>
    <p id="deliveries-error" class="error" role="alert"></p>
    <table class="fit">
      <caption class="muted">Newest first. Retry sends a delivery again with the same webhook-id.</caption>
      <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last result</th><th scope="col">Next attempt</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody id="delivery-rows"></tbody>
    </table>
    <div class="row">
      <button id="deliveries-newest" type="button" aria-label="Newest deliveries">Newest</button>
      <button id="deliveries-older" type="button" aria-label="Older deliveries" disabled>Older</button>
      <button id="deliveries-close" type="button">Close deliveries</button>
    </div>
  </div>
</section>

<section id="api-keys" class="wide" aria-labelledby="api-keys-title">
  <h2 id="api-keys-title">API keys</h2>
  <form id="api-key-form" class="stack" hidden>
    <div class="row">
      <label class="grow">Name <input name="name" maxlength="100" required></label>
      <label>Expires on (optional, UTC) <input name="expiresOn" type="date"></label>
      <label>Requests per minute (optional) <input name="rateLimitPerMinute" type="number" min="1" max="100000" step="1"></label>
    </div>
    <fieldset>
      <legend>Scopes</legend>
      ${checkboxes('scope', API_KEY_SCOPES)}
    </fieldset>
    <div class="row"><button type="submit">Create API key</button></div>
  </form>
  <p id="api-keys-error" class="error" role="alert"></p>
  <div id="api-key-list" hidden>
    <div class="row">
      <span class="field"><label for="api-key-overlap">After a roll, the old key keeps working for</label> <select id="api-key-overlap"><option value="0">no time: it stops at once</option><option value="300">5 minutes</option><option value="3600" selected>1 hour</option><option value="86400">24 hours</option></select></span>
    </div>
    <table class="fit">
      <caption class="muted">Keys not revoked, in the order they were made. A key itself is shown once, when it is made; the prefix tells keys apart.</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody id="api-key-rows"></tbody>
    </table>
    <div class="row">
      <button id="api-keys-first" type="button">First page</button>
      <button id="api-keys-next" type="button" aria-label="Next page of API keys" disabled>Next page</button>
    </div>
  </div>
</section>

<section id="sessions" aria-labelledby="sessions-title">
  <h2 id="sessions-title">Your sessions</h2>
  <p id="sessions-error" class="error" role="alert"></p>
  <table>
    <caption class="muted">Your live sign-ins in every organisation, newest first. This one ends with Sign out.</caption>
    <thead><tr><th scope="col">Opened</th><th scope="col">Last seen</th><th scope="col">Client</th><th scope="col">Method</th><th scope="col">Organisation</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="session-rows"></tbody>
  </table>
  <button id="sessions-refresh" type="button">Refresh</button>
</section>
</div>
</main>

<!-- The one dialog that shows a secret once (an invite token, a webhook signing secret, an API key): the script words it. -->
<dialog id="token-dialog" aria-labelledby="token-title" aria-describedby="token-warning">
  <h2 id="token-title">Invitation token</h2>
  <p id="token-warning" class="warning">Shown this once. Copy it now and hand it to the invitee over a channel you trust: it is stored nowhere and cannot be shown again.</p>
  <p><code id="token-value" class="token"></code></p>
  <div class="row">
    <button id="token-copy" type="button">Copy token</button>
    <button id="token-close" type="button">Done, close</button>
  </div>
  <output id="token-copy-status" class="muted"></output>
</dialog>

<dialog id="confirm-dialog" aria-labelledby="confirm-title">
  <h2 id="confirm-title">Cancel this invite?</h2>
  <p id="confirm-text"></p>
  <div class="row">
    <button id="confirm-yes" type="button">Cancel invite</button>
    <button id="confirm-no" type="button">Keep it</button>
  </div>
</dialog>
</body>
</html>
`;
}

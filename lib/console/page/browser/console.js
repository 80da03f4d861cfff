// The runstate console's one script, served as it is written (lib/console/page/script.ts). Every call goes to
// /console/…: the server keeps the session in HttpOnly cookies, so this script never sees a token or keeps a password;
// API errors are shown in the API's words, with the machine code as a detail (showError).

/**
 * @import { ApiKey, Connection, Context, Delivery, HistoryEvent, Invite, Job, Member, Membership, Passkey, Runtime, Session, SignInPolicy,
 *   UAParserConstructor, WebhookEndpoint } from './api-shapes.ts'
 */

/**
 * The element with this id in the page's markup (lib/console/page/shell.ts), of the kind the script uses it as.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T }} kind
 * @returns {T}
 */
function byId(id, kind) {
  const element = document.getElementById(id);
  if (!(element instanceof kind)) throw new Error('the page has no ' + kind.name + ' #' + id);
  return element;
}

/** @param {string} id */
const $ = (id) => byId(id, HTMLElement);

/**
 * A named control of a form: an input or a select.
 * @param {HTMLFormElement} form
 * @param {string} name
 */
function field(form, name) {
  const control = form.elements.namedItem(name);
  if (!(control instanceof HTMLInputElement || control instanceof HTMLSelectElement)) throw new Error('the form has no field ' + name);
  return control;
}

/**
 * A named checkbox of a form.
 * @param {HTMLFormElement} form
 * @param {string} name
 */
function checkbox(form, name) {
  const control = form.elements.namedItem(name);
  if (!(control instanceof HTMLInputElement && control.type === 'checkbox')) throw new Error('the form has no checkbox ' + name);
  return control;
}

/** @param {string} name */
const meta = (name) => byQuery('meta[name="' + name + '"]', HTMLMetaElement).content;

/**
 * @template {Element} T
 * @param {string} selector
 * @param {{ new (): T }} kind
 * @returns {T}
 */
function byQuery(selector, kind) {
  const element = document.querySelector(selector);
  if (!(element instanceof kind)) throw new Error('the page has no ' + selector);
  return element;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HISTORY_PAGE = 10;
const MEMBER_PAGE = 20;
const POLL_MS = 1000;

let csrfToken = meta('csrf-token');
/**
 * @type {{ memberships: Membership[], organizationId: string | null, locationId: string | null,
 *   historyCursor: string | null, historyNext: string | null, membersCursor: string | null, membersNext: string | null }}
 */
const state = {
  memberships: [],
  organizationId: null,
  locationId: null,
  historyCursor: null,
  historyNext: null,
  membersCursor: null,
  membersNext: null,
};

class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** @param {Response} response */
async function errorOf(response) {
  try {
    const body = await response.json();
    if (body && body.error) return new ApiError(response.status, body.error.code, body.error.message);
  } catch {
    // not the house error shape: fall through to the status line
  }
  return new ApiError(response.status, 'HTTP_' + response.status, response.statusText || 'the request failed');
}

/**
 * An error in words: the API's message as a sentence (capitalised, with its full stop); the code is not in it.
 * @param {unknown} error
 */
function describe(error) {
  const message = typeof error === 'object' && error !== null && 'message' in error ? error.message : undefined;
  const text = String(message || error);
  const words = text.charAt(0).toUpperCase() + text.slice(1);
  return words + (/[.!?…]$/.test(words) ? '' : '.');
}

/**
 * Shows an error in `element`: its words first, then the API's machine code as a smaller detail for whoever reports
 * it (`code: LAST_ADMIN`). `before`, if given, leads the words.
 * @param {HTMLElement} element
 * @param {unknown} error
 * @param {string} [before]
 */
function showError(element, error, before = '') {
  element.replaceChildren((before ? before + ' ' : '') + describe(error));
  if (error instanceof ApiError) {
    const code = document.createElement('small');
    code.className = 'code';
    code.textContent = 'code: ' + error.code;
    element.append(' ', code);
  }
}

/**
 * @param {string} path
 * @param {{ method?: string, body?: unknown }} [options]
 */
function consoleFetch(path, { method = 'GET', body } = {}) {
  /** @type {Record<string, string>} */
  const headers = { 'x-csrf-token': csrfToken };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
}

// One refresh at a time for the whole page: a refresh token works once, and a second use would end the session.
/** @type {Promise<boolean> | null} */
let refreshing = null;
function refreshSession() {
  refreshing ??= consoleFetch('/console/session/refresh', { method: 'POST' })
    .then((response) => response.ok)
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/**
 * An API call through /console/api; an expired access token is refreshed once, a lost session goes back to sign-in.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<Response>}
 */
async function api(method, path, body) {
  let response = await consoleFetch('/console/api' + path, { method, body });
  if (response.status === 401 && (await refreshSession())) response = await consoleFetch('/console/api' + path, { method, body });
  if (response.status === 401) {
    const error = await errorOf(response);
    showSignIn(error);
    throw error;
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

/**
 * The API's JSON answer; each caller says which shape it reads.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
const json = async (method, path, body) => (await api(method, path, body)).json();

/**
 * @param {string} text
 * @param {string} [className]
 */
function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

/**
 * @param {string} label
 * @param {() => unknown} onClick
 * @param {string} [ariaLabel]
 */
function button(label, onClick, ariaLabel) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  if (ariaLabel) b.setAttribute('aria-label', ariaLabel);
  b.addEventListener('click', onClick);
  return b;
}

/**
 * An id's last 8 characters: UUIDv7s share their leading (time) digits, so their ends tell them apart.
 * @param {string | null} id
 */
function short(id) {
  return id ? '…' + id.slice(-8) : '—';
}

// ——— dates: one format for the page, whatever the browser's locale or zone ———

/**
 * The absolute form, unambiguous and the same everywhere: `2026-12-07 09:56 UTC`.
 * @param {string | null} iso
 * @param {string} [none]
 */
function stamp(iso, none = '—') {
  if (!iso) return none;
  const utc = new Date(iso).toISOString();
  return utc.slice(0, 10) + ' ' + utc.slice(11, 16) + ' UTC';
}

/** Each unit of `relative`, in seconds, and the count from which the next, larger one says it instead. */
/** @type {Array<[seconds: number, name: string, upTo: number]>} */
const RELATIVE_UNITS = [
  [60, 'min', 60],
  [3600, 'h', 48],
  [86400, 'day', 60],
  [30 * 86400, 'month', 24],
  [365 * 86400, 'year', Infinity],
];

/**
 * How long ago (or until) an instant, in words: `just now`, `3 min ago`, `in 2 h`, `5 days ago`, `4 months ago`.
 * @param {number} ms the instant minus now
 */
function relative(ms) {
  const seconds = Math.abs(ms) / 1000;
  if (seconds < 45) return 'just now';
  let words = '';
  for (const [size, name, upTo] of RELATIVE_UNITS) {
    const amount = Math.max(1, Math.round(seconds / size));
    words = amount + ' ' + name + (amount > 1 && size >= 86400 ? 's' : '');
    if (amount < upTo) break;
  }
  return ms < 0 ? words + ' ago' : 'in ' + words;
}

/**
 * A date as the page shows it: relative in words, the absolute form on hover (title); redrawn by the page's timer.
 * @param {string} iso
 * @param {string} [prefix] words before it (`expired `)
 */
function dateElement(iso, prefix = '') {
  const time = document.createElement('time');
  time.dateTime = iso;
  time.title = stamp(iso);
  time.dataset.relative = prefix;
  time.textContent = prefix + relative(Date.parse(iso) - Date.now());
  return time;
}

/**
 * A table cell holding a date (or `none` when there is none).
 * @param {string | null} iso
 * @param {string} [none]
 * @param {string} [className]
 */
function dateCell(iso, none = '—', className) {
  const td = cell(iso ? '' : none, className);
  if (iso) td.append(dateElement(iso));
  return td;
}

/** @param {number} ms */
function duration(ms) {
  if (ms <= 0) return 'expired';
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return (h > 0 ? h + 'h ' : '') + (h > 0 || m > 0 ? m + 'm ' : '') + s + 's';
}

/** @param {string | null} locationId */
function outletName(locationId) {
  if (!locationId) return 'whole organisation';
  for (const membership of state.memberships) {
    for (const location of membership.locations) if (location.locationId === locationId) return location.name;
  }
  return 'another outlet';
}

/** @param {string} organizationId */
function organizationName(organizationId) {
  const membership = state.memberships.find((m) => m.organizationId === organizationId);
  return membership ? membership.name : 'another organisation';
}

/**
 * Focus on the button of `container` with this accessible name, once a redraw has replaced the one that had it.
 * @param {HTMLElement} container
 * @param {string} label
 * @param {HTMLElement} fallback
 */
function refocus(container, label, fallback) {
  const again = [...container.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === label);
  (again || fallback).focus();
}

/** @param {string} suffix */
function orgPath(suffix) {
  return '/orgs/' + state.organizationId + suffix;
}

/**
 * @param {string} text
 * @param {unknown} [error] shown after the text, in words with its code as a detail
 */
function notice(text, error) {
  if (error === undefined) $('notice').textContent = text;
  else showError($('notice'), error, text);
}

// ——— narrow cards ———

// Each body cell carries its column's heading (data-label): a card too narrow for its table shows each row as a
// stack of labelled lines (style.ts), so no control is cut off on a phone. Set here once for every table, as rows are drawn.
new MutationObserver((records) => {
  /** @type {Set<HTMLTableSectionElement>} */
  const bodies = new Set();
  for (const record of records) {
    const body = record.target instanceof Element ? record.target.closest('tbody') : null;
    if (body instanceof HTMLTableSectionElement) bodies.add(body);
  }
  for (const body of bodies) labelCells(body);
}).observe($('views'), { childList: true, subtree: true });

/** @param {HTMLTableSectionElement} body */
function labelCells(body) {
  const head = body.closest('table')?.tHead?.rows[0];
  if (!head) return;
  // A heading only screen readers get (the actions column) labels nothing.
  const labels = [...head.cells].map((th) => (th.querySelector('.visually-hidden') ? '' : (th.textContent ?? '').trim()));
  for (const row of body.rows) {
    let column = 0;
    for (const td of row.cells) {
      td.dataset.label = td.colSpan > 1 ? '' : (labels[column] ?? '');
      column += td.colSpan;
    }
  }
}

// ——— sign-in ———

/** @param {unknown} [error] why the form is shown again, if for a reason */
function showSignIn(error) {
  $('views').hidden = true;
  $('context').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  $('password-form').hidden = false;
  $('mfa-form').hidden = true;
  if (error) showError($('sign-in-error'), error);
  else $('sign-in-error').textContent = '';
  field(byId('password-form', HTMLFormElement), 'organization').focus();
}

/**
 * The sign-in form's organisation as an id: typed as one, or its slug resolved.
 * @returns {Promise<string>}
 */
async function signInOrganization() {
  const organization = field(byId('password-form', HTMLFormElement), 'organization').value.trim();
  if (UUID.test(organization)) return organization;
  const resolved = await consoleFetch('/console/api/public/tenants/resolve?slug=' + encodeURIComponent(organization.toLowerCase()));
  if (!resolved.ok) throw await errorOf(resolved);
  return (await resolved.json()).tenant.organizationId;
}

/**
 * @simplewebauthn/browser, loaded before this script from /console/assets/webauthn.js (a classic script: it sets a global).
 * @type {typeof import('@simplewebauthn/browser')}
 */
const webauthn = Reflect.get(globalThis, 'SimpleWebAuthnBrowser');

byId('password-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = byId('password-form', HTMLFormElement);
  const password = field(form, 'password');
  $('sign-in-error').textContent = '';
  try {
    const organizationId = await signInOrganization();
    const response = await consoleFetch('/console/session', {
      method: 'POST',
      body: { organizationId, email: field(form, 'email').value, password: password.value },
    });
    password.value = '';
    if (!response.ok) throw await errorOf(response);
    const answer = await response.json();
    if (answer.status === 'mfa-required') {
      form.hidden = true;
      $('mfa-form').hidden = false;
      field(byId('mfa-form', HTMLFormElement), 'code').focus();
      return;
    }
    csrfToken = answer.csrfToken;
    await start();
  } catch (error) {
    password.value = '';
    showError($('sign-in-error'), error);
  }
});

// Passkey sign-in needs only the organisation: the authenticator offers the account's passkey (no email is asked, so
// nothing tells whether one exists). The console's own route turns the signed-in answer into the cookie session.
$('passkey-sign-in').addEventListener('click', async () => {
  const form = byId('password-form', HTMLFormElement);
  $('sign-in-error').textContent = '';
  try {
    if (!field(form, 'organization').value.trim()) throw new Error('Enter the organisation first.');
    const organizationId = await signInOrganization();
    const options = await consoleFetch('/console/api/auth/passkeys/authentication/options', { method: 'POST', body: { organizationId } });
    if (!options.ok) throw await errorOf(options);
    const response = await webauthn.startAuthentication({ optionsJSON: await options.json() });
    const answer = await consoleFetch('/console/session/passkey', { method: 'POST', body: { organizationId, response } });
    if (!answer.ok) throw await errorOf(answer);
    field(form, 'password').value = '';
    csrfToken = (await answer.json()).csrfToken;
    await start();
  } catch (error) {
    showError($('sign-in-error'), error);
  }
});

byId('mfa-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const code = field(byId('mfa-form', HTMLFormElement), 'code');
  try {
    const response = await consoleFetch('/console/session/mfa', { method: 'POST', body: { code: code.value.trim() } });
    code.value = '';
    if (!response.ok) throw await errorOf(response);
    csrfToken = (await response.json()).csrfToken;
    await start();
  } catch (error) {
    showError($('sign-in-error'), error);
  }
});

$('sign-out').addEventListener('click', async () => {
  const button = byId('sign-out', HTMLButtonElement);
  button.disabled = true;
  try {
    const response = await consoleFetch('/console/session/logout', { method: 'POST' });
    if (!response.ok) throw await errorOf(response);
  } catch (error) {
    // The session may still be live (the server kept its cookies): say so, and keep the button for another try.
    notice('Sign-out did not complete: you are still signed in. Try again.', error);
    return;
  } finally {
    button.disabled = false;
  }
  // A fresh page: nothing of the session stays in this document.
  location.replace('/console');
});

// ——— context ———

/**
 * @param {HTMLSelectElement} select
 * @param {Membership | undefined} membership
 * @param {string | null} selected
 * @param {string} wholeLabel
 */
function fillOutlets(select, membership, selected, wholeLabel) {
  select.replaceChildren();
  const whole = document.createElement('option');
  whole.value = '';
  whole.textContent = wholeLabel;
  select.append(whole);
  for (const location of membership ? membership.locations : []) {
    const option = document.createElement('option');
    option.value = location.locationId;
    option.textContent = location.name;
    option.selected = location.locationId === selected;
    select.append(option);
  }
}

function renderContext() {
  const orgSelect = $('context-org');
  orgSelect.replaceChildren();
  for (const membership of state.memberships) {
    const option = document.createElement('option');
    option.value = membership.organizationId;
    option.textContent =
      membership.name + (membership.roleCode ? ' (' + membership.roleCode + ')' : '') + (membership.switchable ? '' : ' (sign in)');
    option.selected = membership.organizationId === state.organizationId;
    orgSelect.append(option);
  }
  const membership = state.memberships.find((m) => m.organizationId === state.organizationId);
  fillOutlets(byId('context-outlet', HTMLSelectElement), membership, state.locationId, 'Whole organisation');
  fillOutlets(byId('invite-outlet', HTMLSelectElement), membership, state.locationId, 'Whole organisation');
}

$('context-org').addEventListener('change', () => {
  const membership = state.memberships.find((m) => m.organizationId === byId('context-org', HTMLSelectElement).value);
  fillOutlets(byId('context-outlet', HTMLSelectElement), membership, null, 'Whole organisation');
});

/**
 * @param {string} organizationId
 * @param {string | null} locationId
 */
async function useContext(organizationId, locationId) {
  // The console's own route: a switch to another organisation answers new tokens, which it keeps in the cookies.
  const body = { organizationId, locationId: locationId || null };
  let response = await consoleFetch('/console/session/context', { method: 'PUT', body });
  if (response.status === 401 && (await refreshSession()))
    response = await consoleFetch('/console/session/context', { method: 'PUT', body });
  if (!response.ok) {
    const error = await errorOf(response);
    // A sign-in that organisation does not accept (or a session that ended): sign in there, the form filled in.
    if (error.code === 'SIGN_IN_REQUIRED' || response.status === 401) {
      showSignIn(error);
      if (error.code === 'SIGN_IN_REQUIRED') field(byId('password-form', HTMLFormElement), 'organization').value = organizationId;
    }
    throw error;
  }
  /** @type {{ context: Context }} */
  const { context } = await response.json();
  state.organizationId = context.organizationId;
  state.locationId = context.locationId;
  $('context-status').textContent = 'as ' + context.roleCode;
  renderContext();
}

$('context').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const org = byId('context-org', HTMLSelectElement);
    await useContext(org.value, byId('context-outlet', HTMLSelectElement).value);
    notice(
      'Active context: ' + outletName(state.locationId) + ' of ' + /** @type {HTMLOptionElement} */ (org.selectedOptions[0]).textContent,
    );
    await loadViews();
  } catch (error) {
    showError($('context-status'), error);
  }
});

// ——— invites ———

async function loadInvites() {
  const rows = $('invite-rows');
  $('invites-error').textContent = '';
  try {
    /** @type {{ invites: Invite[] }} */
    const { invites } = await json('GET', orgPath('/invites?limit=100'));
    rows.replaceChildren(
      ...invites.map((invite) => {
        const tr = document.createElement('tr');
        const expires = document.createElement('time');
        expires.dateTime = invite.expiresAtUtc;
        expires.dataset.expires = invite.expiresAtUtc;
        expires.title = stamp(invite.expiresAtUtc);
        expires.textContent = duration(Date.parse(invite.expiresAtUtc) - Date.now());
        const when = cell('');
        when.append(expires);
        const actions = cell('');
        actions.append(
          button('Resend', () => resendInvite(invite), 'Resend the invite for ' + invite.email),
          ' ',
          button('Cancel', () => cancelInvite(invite), 'Cancel the invite for ' + invite.email),
        );
        tr.append(cell(invite.email, 'email'), cell(invite.roleCode), cell(outletName(invite.locationId)), when, actions);
        return tr;
      }),
    );
    if (invites.length === 0) {
      const tr = document.createElement('tr');
      const td = cell('No active invites.', 'muted');
      td.colSpan = 5;
      tr.append(td);
      rows.append(tr);
    }
  } catch (error) {
    showError($('invites-error'), error);
  }
}

// The page's one timer: the live countdown of every invite (a row that reaches zero is gone on the next list), and
// every relative date ("3 min ago") kept true.
let expiredSeen = false;
setInterval(() => {
  for (const time of /** @type {NodeListOf<HTMLTimeElement>} */ (document.querySelectorAll('time[data-relative]'))) {
    time.textContent = (time.dataset.relative ?? '') + relative(Date.parse(time.dateTime) - Date.now());
  }
  for (const time of /** @type {NodeListOf<HTMLTimeElement>} */ (document.querySelectorAll('time[data-expires]'))) {
    const left = Date.parse(time.dataset.expires ?? '') - Date.now();
    time.textContent = duration(left);
    if (left <= 0 && !expiredSeen) {
      expiredSeen = true;
      setTimeout(() => {
        expiredSeen = false;
        void loadInvites();
      }, 1500);
    }
  }
}, 1000);

byId('invite-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = byId('invite-form', HTMLFormElement);
  $('invites-error').textContent = '';
  notice('');
  try {
    const email = field(form, 'email').value;
    const delivery = field(form, 'delivery').value;
    /** @type {{ token?: string, delivery?: string }} */
    const created = await json('POST', orgPath('/invites'), {
      email,
      roleCode: field(form, 'roleCode').value,
      locationId: field(form, 'locationId').value || null,
      delivery,
    });
    form.reset();
    if (delivery === 'none') {
      // The one answer that carries the token: it goes to the dialog and nowhere else.
      const token = String(created.token);
      delete created.token;
      showToken(token);
      await Promise.all([loadInvites(), loadHistory(null)]);
      return;
    }
    await Promise.all([loadInvites(), loadHistory(null)]);
    // Last, once the lists are drawn, as for every other action.
    notice(deliveryNotice('Invite for ' + email, created.delivery));
  } catch (error) {
    showError($('invites-error'), error);
  }
});

/**
 * What an emailed invite's answer says about the send: a failed one leaves the invite standing, to be resent.
 * @param {string} what
 * @param {string | undefined} delivery
 */
function deliveryNotice(what, delivery) {
  return what + (delivery === 'sent' ? ': email sent.' : ': email failed — use Resend.');
}

/** How the dialog words an invitation token, the first secret it showed (the markup's own wording). */
const INVITE_TOKEN_WORDING = {
  title: 'Invitation token',
  warning:
    'Shown this once. Copy it now and hand it to the invitee over a channel you trust: it is stored nowhere and cannot be shown again.',
  copy: 'Copy token',
};

/**
 * A secret (an invite token, a webhook signing secret, an API key) lives only in this dialog: on close it leaves the DOM
 * and the last reference to it is dropped. It is never logged nor put in any storage.
 * Focus goes back to the control that opened it, or, when a redraw replaced that control meanwhile, to `refocusTo()`.
 * @param {string} token
 * @param {{ title: string, warning: string, copy: string }} [wording]
 * @param {() => void} [refocusTo]
 */
function showToken(token, wording = INVITE_TOKEN_WORDING, refocusTo) {
  const dialog = byId('token-dialog', HTMLDialogElement);
  const opener = document.activeElement;
  $('token-title').textContent = wording.title;
  $('token-warning').textContent = wording.warning;
  $('token-copy').textContent = wording.copy;
  /** @type {string | null} */
  let secret = token;
  const holder = document.createElement('span');
  holder.textContent = secret;
  $('token-value').replaceChildren(holder);
  $('token-copy-status').textContent = '';
  const copy = async () => {
    if (secret === null) return;
    try {
      await navigator.clipboard.writeText(secret);
      $('token-copy-status').textContent = 'Copied to the clipboard.';
    } catch {
      getSelection()?.selectAllChildren($('token-value'));
      $('token-copy-status').textContent = 'Selected: press Ctrl+C (⌘C) to copy it.';
    }
  };
  const close = () => dialog.close();
  $('token-copy').addEventListener('click', copy);
  $('token-close').addEventListener('click', close);
  dialog.addEventListener(
    'close',
    () => {
      secret = null;
      $('token-value').replaceChildren();
      $('token-copy-status').textContent = '';
      $('token-copy').removeEventListener('click', copy);
      $('token-close').removeEventListener('click', close);
      // A redraw under the dialog leaves the body focused in place of the control that opened it.
      if (opener instanceof HTMLElement && opener.isConnected && opener !== document.body) opener.focus();
      else if (refocusTo) refocusTo();
    },
    { once: true },
  );
  dialog.showModal();
  $('token-copy').focus();
}

/**
 * The one confirmation dialog, worded for what it confirms; focus goes back to the control that opened it.
 * @param {{ title: string, text: string, yes: string, no: string }} wording
 * @returns {Promise<boolean>}
 */
function confirmAction({ title, text, yes: yesLabel, no: noLabel }) {
  return new Promise((resolve) => {
    const dialog = byId('confirm-dialog', HTMLDialogElement);
    const opener = document.activeElement;
    let answer = false;
    $('confirm-title').textContent = title;
    $('confirm-text').textContent = text;
    $('confirm-yes').textContent = yesLabel;
    $('confirm-no').textContent = noLabel;
    const yes = () => {
      answer = true;
      dialog.close();
    };
    const no = () => dialog.close();
    $('confirm-yes').addEventListener('click', yes);
    $('confirm-no').addEventListener('click', no);
    dialog.addEventListener(
      'close',
      () => {
        $('confirm-yes').removeEventListener('click', yes);
        $('confirm-no').removeEventListener('click', no);
        if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
        resolve(answer);
      },
      { once: true },
    );
    dialog.showModal();
    $('confirm-no').focus();
  });
}

/** @param {Invite} invite */
async function cancelInvite(invite) {
  const confirmed = await confirmAction({
    title: 'Cancel this invite?',
    text: 'The invite for ' + invite.email + ' (' + invite.roleCode + ') stops working at once.',
    yes: 'Cancel invite',
    no: 'Keep it',
  });
  if (!confirmed) return;
  $('invites-error').textContent = '';
  let cancelled = false;
  try {
    await api('DELETE', orgPath('/invites/' + invite.inviteId));
    cancelled = true;
  } catch (error) {
    showError($('invites-error'), error);
  }
  await Promise.all([loadInvites(), loadHistory(null)]);
  $('invites-refresh').focus();
  // Last, so whoever acts on the notice finds the lists and the focus already as they end.
  if (cancelled) notice('Cancelled the invite for ' + invite.email + '.');
}

/**
 * A new token by email and a restarted expiry; the old link stops working (POST …/invites/{inviteId}/resend).
 * @param {Invite} invite
 */
async function resendInvite(invite) {
  $('invites-error').textContent = '';
  notice('');
  /** @type {string | null} */
  let delivery = null;
  try {
    /** @type {{ delivery: string }} */
    const resent = await json('POST', orgPath('/invites/' + invite.inviteId + '/resend'));
    delivery = resent.delivery;
  } catch (error) {
    showError($('invites-error'), error);
  }
  await Promise.all([loadInvites(), loadHistory(null)]);
  refocus($('invite-rows'), 'Resend the invite for ' + invite.email, $('invites-refresh'));
  // Last, so whoever acts on the notice finds the lists and the focus already as they end.
  if (delivery !== null) notice(deliveryNotice('Resent the invite for ' + invite.email, delivery));
}

$('invites-refresh').addEventListener('click', () => void loadInvites());

// ——— history ———

/** @param {string | null} cursor */
async function loadHistory(cursor) {
  $('history-error').textContent = '';
  try {
    const query = '?limit=' + HISTORY_PAGE + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '');
    /** @type {{ events: HistoryEvent[], nextCursor: string | null }} */
    const { events, nextCursor } = await json('GET', orgPath('/invites/history' + query));
    state.historyCursor = cursor;
    state.historyNext = nextCursor;
    $('history-rows').replaceChildren(
      ...events.map((e) => {
        const tr = document.createElement('tr');
        const correlation = cell(e.correlationId.length > 20 ? short(e.correlationId) : e.correlationId, 'mono');
        correlation.title = e.correlationId;
        tr.append(
          dateCell(e.occurredAt),
          cell(e.action, 'mono'),
          cell(actorName(e), 'email'),
          cell(short(e.inviteId), 'mono'),
          cell(outletName(e.outletId)),
          correlation,
        );
        return tr;
      }),
    );
    byId('history-older', HTMLButtonElement).disabled = !nextCursor;
  } catch (error) {
    showError($('history-error'), error);
    byId('history-older', HTMLButtonElement).disabled = true;
  }
}

/**
 * Who did it, as a person reads it: a member by email (the API names only members of this organisation, to admins);
 * anyone else who once acted here is "a former member". No id is shown.
 * @param {HistoryEvent} event
 */
function actorName(event) {
  if (event.actor?.type === 'api_key') return 'an API key';
  if (event.actorEmail) return event.actorEmail;
  return event.actorUserId === null ? 'no one (automatic)' : 'a former member';
}

$('history-newest').addEventListener('click', () => void loadHistory(null));
$('history-older').addEventListener('click', () => void loadHistory(state.historyNext));

// ——— members ———

/** @param {string | null} cursor */
async function loadMembers(cursor) {
  $('members-error').textContent = '';
  try {
    const query = '?limit=' + MEMBER_PAGE + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '');
    /** @type {{ members: Member[], nextCursor: string | null }} */
    const { members, nextCursor } = await json('GET', orgPath('/members' + query));
    state.membersCursor = cursor;
    state.membersNext = nextCursor;
    $('member-rows').replaceChildren(...members.map(memberRow));
    if (members.length === 0) {
      // A later page whose members were all removed meanwhile (keyset pages shift nothing).
      const tr = document.createElement('tr');
      const td = cell('No members on this page.', 'muted');
      td.colSpan = 5;
      tr.append(td);
      $('member-rows').append(tr);
    }
    byId('members-next', HTMLButtonElement).disabled = !nextCursor;
  } catch (error) {
    showError($('members-error'), error);
    byId('members-next', HTMLButtonElement).disabled = true;
  }
}

/**
 * One role assignment: its role as a select with Save, and Remove; a refusal (LAST_ADMIN, …) is shown in the row.
 * @param {Member} member
 */
function memberRow(member) {
  const tr = document.createElement('tr');
  const scope = outletName(member.locationId);
  const who = member.email + ' (' + scope + ')';
  const role = document.createElement('select');
  role.setAttribute('aria-label', 'Role of ' + who);
  // The invite form's role options (lib/console/page/shell.ts): one list of roles for the page.
  for (const option of byQuery('#invite-form select[name="roleCode"]', HTMLSelectElement).options) role.append(option.cloneNode(true));
  role.value = member.roleCode;
  const result = document.createElement('output');
  result.className = 'error';
  const roleCell = cell('');
  roleCell.append(
    role,
    ' ',
    button('Save', () => changeRole(member, role, result), 'Save the role of ' + who),
  );
  const actions = cell('');
  actions.append(
    button('Remove', () => removeMember(member, result), 'Remove ' + member.email),
    ' ',
    result,
  );
  tr.append(cell(member.email, 'email'), roleCell, cell(scope), dateCell(member.joinedAt), actions);
  return tr;
}

/**
 * @param {Member} member
 * @param {HTMLSelectElement} select
 * @param {HTMLOutputElement} result
 */
async function changeRole(member, select, result) {
  const roleCode = select.value;
  result.textContent = '';
  try {
    await json('PATCH', orgPath('/members/' + member.userId), { roleCode, locationId: member.locationId });
  } catch (error) {
    // Nothing changed: the select shows the role still held, the refusal beside it.
    select.value = member.roleCode;
    showError(result, error);
    return;
  }
  // The notice comes once the list shows the change, so nothing acts on rows about to be replaced.
  await loadMembers(state.membersCursor);
  notice(member.email + ' is now ' + roleCode + ' (' + outletName(member.locationId) + ').');
  refocus($('member-rows'), 'Save the role of ' + member.email + ' (' + outletName(member.locationId) + ')', $('members-first'));
}

/**
 * @param {Member} member
 * @param {HTMLOutputElement} result
 */
async function removeMember(member, result) {
  const confirmed = await confirmAction({
    title: 'Remove this member?',
    text: member.email + ' loses every role in this organisation, and their sessions opened in it end at once.',
    yes: 'Remove member',
    no: 'Keep them',
  });
  if (!confirmed) return;
  result.textContent = '';
  try {
    await api('DELETE', orgPath('/members/' + member.userId));
  } catch (error) {
    showError(result, error);
    return;
  }
  await loadMembers(state.membersCursor);
  notice('Removed ' + member.email + ' from the organisation.');
  $('members-first').focus();
}

$('members-first').addEventListener('click', () => void loadMembers(null));
$('members-next').addEventListener('click', () => void loadMembers(state.membersNext));

// ——— Syrve connections ———

/** @param {Runtime} runtime */
function runtimeCells(runtime) {
  const { session, refreshLock, reconnect } = runtime;
  return [
    cell(session.cached ? 'cached, ' + session.secondsLeft + ' s left' : 'none cached', session.cached ? 'state-on' : 'state-off'),
    cell(refreshLock.held ? 'held, ' + refreshLock.secondsLeft + ' s left' : 'free', refreshLock.held ? 'state-bad' : 'state-off'),
    cell(
      reconnect.circuitOpen
        ? 'open, ' + reconnect.secondsLeft + ' s left (' + reconnect.failures + ' failures)'
        : 'closed (' + reconnect.failures + ' failures)',
      reconnect.circuitOpen ? 'state-bad' : 'state-on',
    ),
  ];
}

/**
 * @param {Connection} connection
 * @param {{ text: string } | { error: unknown }} [outcome] the last test's, shown beside its button
 * @returns {Promise<HTMLTableRowElement>}
 */
async function connectionRow(connection, outcome) {
  const tr = document.createElement('tr');
  const name = cell(connection.name + (connection.enabled ? '' : ' (disabled)'));
  const result = document.createElement('output');
  result.className = 'muted';
  if (outcome && 'error' in outcome) showError(result, outcome.error);
  else result.textContent = outcome ? outcome.text : '';
  /** @type {HTMLTableCellElement[]} */
  let cells;
  try {
    cells = runtimeCells(await json('GET', orgPath('/syrve/connections/' + connection.connectionId + '/runtime')));
  } catch (error) {
    const failed = cell('', 'error');
    showError(failed, error);
    failed.colSpan = 3;
    cells = [failed];
  }
  const test = async () => {
    result.textContent = 'testing…';
    /** @type {{ text: string } | { error: unknown }} */
    let shown;
    try {
      /** @type {{ test: string, session: string }} */
      const outcome = await json('POST', orgPath('/syrve/connections/' + connection.connectionId + '/test'));
      shown = { text: 'test ' + outcome.test + ', session ' + outcome.session };
    } catch (error) {
      shown = { error };
    }
    // The row again, with the runtime state the test left behind.
    const next = await connectionRow(connection, shown);
    tr.replaceWith(next);
    next.querySelector('button')?.focus();
  };
  const actions = cell('');
  actions.append(button('Run test', test, 'Run a test of ' + connection.name), ' ', result);
  tr.append(name, ...cells, actions);
  return tr;
}

async function loadSyrve() {
  $('syrve-error').textContent = '';
  try {
    /** @type {{ connections: Connection[] }} */
    const { connections } = await json('GET', orgPath('/syrve/connections'));
    const rows = await Promise.all(connections.map((connection) => connectionRow(connection)));
    $('syrve-rows').replaceChildren(...rows);
    if (rows.length === 0) {
      const tr = document.createElement('tr');
      const td = cell('No connections.', 'muted');
      td.colSpan = 5;
      tr.append(td);
      $('syrve-rows').append(tr);
    }
  } catch (error) {
    showError($('syrve-error'), error);
  }
}

$('syrve-refresh').addEventListener('click', () => void loadSyrve());

// ——— audit exports ———

/** The list's next (older) page, from the API's nextCursor; null when the last page is shown. */
let exportsCursor = /** @type {string | null} */ (null);

/**
 * An export's line: its state in words (a queued one says when the scheduled run that starts it is due: exports run
 * only there, docs/design/jobs.md), its progress, who asked and when, and, once done, its file.
 * @param {HTMLLIElement} item
 * @param {Job} job
 * @param {Job['requestedBy']} [requestedBy] who asked, when the answer (POST, the single read) does not say
 */
function renderJob(item, job, requestedBy) {
  const by = job.requestedBy ?? requestedBy;
  item.dataset.jobId = job.jobId;
  const bar = document.createElement('progress');
  bar.max = 100;
  bar.value = job.progressPercent;
  bar.setAttribute('aria-label', 'Export ' + short(job.jobId) + ' progress');
  const label = document.createElement('span');
  label.textContent = short(job.jobId) + ' ' + jobStatus(job);
  label.className = 'mono';
  const origin = document.createElement('span');
  origin.className = 'muted';
  origin.append('started ', dateElement(job.createdAtUtc), by ? ' by ' + requester(by) : '');
  if (job.finishedAtUtc) origin.append(', ended ', dateElement(job.finishedAtUtc));
  item.replaceChildren(label, bar, origin);
  if (job.state === 'done') item.append(button('Download CSV', () => download(job, item), 'Download export ' + short(job.jobId)));
}

/** @param {Job} job */
function jobStatus(job) {
  const rows = `(${job.rowsDone} of ${job.rowsTotal} rows)`;
  if (job.state === 'queued') {
    const at = job.expectedStartBy ? new Date(job.expectedStartBy) : null;
    const time = at ? ', about ' + stamp(at.toISOString()).slice(11) : '';
    return `queued — starts at the next scheduled run${time} ${rows}`;
  }
  const stalled = job.state === 'running' && job.stalled ? ' — stalled, the next scheduled run resumes it' : '';
  return `${job.state} ${job.progressPercent}% ${rows}${stalled}`;
}

/** @param {NonNullable<Job['requestedBy']>} by */
function requester(by) {
  if (by.type === 'api_key') return 'API key ' + short(by.apiKeyId);
  return by.email ?? 'a former member';
}

/**
 * @param {Job} job
 * @param {HTMLLIElement} item
 */
async function download(job, item) {
  try {
    const blob = await (await api('GET', orgPath('/audit/exports/' + job.jobId + '/file'))).blob();
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = 'audit-export-' + job.jobId + '.csv';
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (error) {
    const failed = document.createElement('span');
    failed.className = 'error';
    showError(failed, error);
    item.append(failed);
  }
}

/**
 * @param {HTMLLIElement} item
 * @param {string} jobId
 * @param {Job['requestedBy']} [requestedBy]
 */
async function watchJob(item, jobId, requestedBy) {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!item.isConnected) return;
    try {
      /** @type {{ job: Job }} */
      const { job } = await json('GET', orgPath('/audit/exports/' + jobId));
      renderJob(item, job, requestedBy);
      if (job.state !== 'queued' && job.state !== 'running') return;
    } catch (error) {
      showError($('exports-error'), error);
      return;
    }
  }
}

/**
 * The organisation's exports, newest first, one page at a time: those started in another tab or before a reload too,
 * so the console shows what counts toward the cap of unfinished exports. Unfinished ones are watched until they end.
 * @param {string | null} cursor null: the first page, replacing the list; else the next page, appended
 */
async function loadExports(cursor) {
  $('exports-error').textContent = '';
  try {
    /** @type {{ exports: Job[], nextCursor: string | null }} */
    const page = await json('GET', orgPath('/audit/exports?limit=20' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '')));
    const items = page.exports.map((job) => {
      const item = document.createElement('li');
      renderJob(item, job);
      if (job.state === 'queued' || job.state === 'running') void watchJob(item, job.jobId, job.requestedBy);
      return item;
    });
    if (cursor === null) $('export-list').replaceChildren(...items);
    else $('export-list').append(...items);
    exportsCursor = page.nextCursor;
    $('export-older').hidden = exportsCursor === null;
  } catch (error) {
    $('exports-error').textContent = describe(error);
  }
}

$('export-older').addEventListener('click', () => void loadExports(exportsCursor));

$('export-start').addEventListener('click', async () => {
  $('exports-error').textContent = '';
  try {
    /** @type {{ job: Job }} */
    const { job } = await json('POST', orgPath('/audit/exports'));
    const item = document.createElement('li');
    const you = /** @type {Job['requestedBy']} */ ({ type: 'user', userId: job.requestedByUserId, email: 'you' });
    renderJob(item, job, you);
    $('export-list').prepend(item);
    void watchJob(item, job.jobId, you);
  } catch (error) {
    showError($('exports-error'), error);
  }
});

// ——— your sessions ———

async function loadSessions() {
  $('sessions-error').textContent = '';
  try {
    /** @type {{ sessions: Session[] }} */
    const { sessions } = await json('GET', '/auth/sessions');
    $('session-rows').replaceChildren(...sessions.map(sessionRow));
  } catch (error) {
    showError($('sessions-error'), error);
  }
}

/**
 * The current session is marked and has no End: Sign out ends it, cookies included. The User-Agent is whatever the
 * client sent, so it only ever goes in as text (cell() sets textContent).
 * @param {Session} session
 */
function sessionRow(session) {
  const tr = document.createElement('tr');
  const actions = cell('');
  if (session.current) {
    tr.className = 'current';
    tr.setAttribute('aria-current', 'true');
    const mark = document.createElement('strong');
    mark.textContent = 'This session';
    actions.append(mark);
  } else {
    const result = document.createElement('output');
    result.className = 'error';
    actions.append(
      button('End', () => endSession(session, result), 'End the session opened ' + stamp(session.createdAt)),
      ' ',
      result,
    );
  }
  tr.append(
    dateCell(session.createdAt),
    dateCell(session.lastSeenAt),
    clientCell(session.userAgent),
    cell(session.method ?? '—'),
    cell(organizationName(session.organizationId)),
    actions,
  );
  return tr;
}

/**
 * ua-parser-js's browser build (/console/assets/ua-parser.js, a classic script loaded before this one), or undefined
 * if it did not load: then the raw string is shown.
 * @type {UAParserConstructor | undefined}
 */
const UAParser = Reflect.get(globalThis, 'UAParser');

/**
 * A session's client as a person names it: `Chrome 156 on Linux`, its device class below (`desktop`, `mobile`,
 * `tablet`, …), and the raw User-Agent on hover. The User-Agent is whatever the client sent: it only ever goes in as text.
 * @param {string | null} userAgent
 */
function clientCell(userAgent) {
  if (!userAgent) return cell('not recorded', 'muted');
  const parsed = UAParser ? new UAParser(userAgent).getResult() : undefined;
  const browser = parsed?.browser.name ? parsed.browser.name + (parsed.browser.major ? ' ' + parsed.browser.major : '') : '';
  const system = parsed?.os.name ? parsed.os.name + (parsed.os.version ? ' ' + parsed.os.version : '') : '';
  const named = browser && system ? browser + ' on ' + system : browser || system;
  // ua-parser-js names no type for a desktop browser (docs/console.md#your-sessions-client).
  const device = parsed ? (parsed.device.type ?? 'desktop') : undefined;
  const td = named ? twoLineCell(named, device, 'agent') : cell(userAgent, 'agent');
  td.title = userAgent;
  return td;
}

/**
 * @param {Session} session
 * @param {HTMLOutputElement} result
 */
async function endSession(session, result) {
  result.textContent = '';
  try {
    await api('DELETE', '/auth/sessions/' + session.id);
    notice('Ended the session opened ' + stamp(session.createdAt) + '.');
  } catch (error) {
    showError(result, error);
    return;
  }
  await loadSessions();
  $('sessions-refresh').focus();
}

$('sessions-refresh').addEventListener('click', () => void loadSessions());

// ——— your passkeys ———

async function loadPasskeys() {
  $('passkeys-error').textContent = '';
  try {
    /** @type {{ passkeys: Passkey[] }} */
    const { passkeys } = await json('GET', '/auth/passkeys');
    $('passkey-rows').replaceChildren(...passkeys.map(passkeyRow));
  } catch (error) {
    showError($('passkeys-error'), error);
  }
}

/** @param {Passkey} passkey */
function passkeyRow(passkey) {
  const tr = document.createElement('tr');
  const name = document.createElement('input');
  name.value = passkey.name;
  name.maxLength = 64;
  name.setAttribute('aria-label', 'Name of the passkey ' + passkey.name);
  const nameCell = cell('');
  const actions = cell('');
  const result = document.createElement('output');
  result.className = 'error';
  nameCell.append(
    name,
    ' ',
    button('Save', () => renamePasskey(passkey, name, result), 'Save the name of the passkey ' + passkey.name),
  );
  actions.append(
    button('Remove', () => removePasskey(passkey, result), 'Remove the passkey ' + passkey.name),
    ' ',
    result,
  );
  tr.append(
    nameCell,
    dateCell(passkey.createdAt),
    dateCell(passkey.lastUsedAt, 'never'),
    cell(passkey.transports.join(', ') || '—'),
    actions,
  );
  return tr;
}

/** The step-up the API asks before a passkey is registered or removed: the password, and the code where there is a factor. */
function stepUp() {
  const form = byId('passkey-form', HTMLFormElement);
  const password = field(form, 'password').value;
  const code = field(form, 'code').value.trim();
  return { ...(password ? { password } : {}), ...(code ? { code } : {}) };
}

function clearStepUp() {
  const form = byId('passkey-form', HTMLFormElement);
  field(form, 'password').value = '';
  field(form, 'code').value = '';
}

byId('passkey-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = byId('passkey-form', HTMLFormElement);
  $('passkeys-error').textContent = '';
  try {
    const optionsJSON = await json('POST', '/auth/passkeys/registration/options', stepUp());
    clearStepUp();
    const response = await webauthn.startRegistration({ optionsJSON });
    const name = field(form, 'name').value.trim();
    /** @type {{ passkey: Passkey }} */
    const { passkey } = await json('POST', '/auth/passkeys/registration/verify', { response, ...(name ? { name } : {}) });
    field(form, 'name').value = '';
    await loadPasskeys();
    notice('Registered the passkey ' + passkey.name + '.');
  } catch (error) {
    clearStepUp();
    showError($('passkeys-error'), error);
  }
});

/**
 * @param {Passkey} passkey
 * @param {HTMLInputElement} name
 * @param {HTMLOutputElement} result
 */
async function renamePasskey(passkey, name, result) {
  result.textContent = '';
  try {
    /** @type {{ passkey: Passkey }} */
    const renamed = await json('PATCH', '/auth/passkeys/' + passkey.passkeyId, { name: name.value });
    await loadPasskeys();
    notice('Renamed the passkey ' + passkey.name + ' to ' + renamed.passkey.name + '.');
  } catch (error) {
    showError(result, error);
  }
}

/**
 * @param {Passkey} passkey
 * @param {HTMLOutputElement} result
 */
async function removePasskey(passkey, result) {
  result.textContent = '';
  try {
    await api('DELETE', '/auth/passkeys/' + passkey.passkeyId, stepUp());
    clearStepUp();
  } catch (error) {
    clearStepUp();
    showError(result, error);
    return;
  }
  await loadPasskeys();
  notice('Removed the passkey ' + passkey.name + ': it signs in nowhere from now on.');
  field(byId('passkey-form', HTMLFormElement), 'name').focus();
}

// ——— sign-in policy ———

/** @returns {HTMLInputElement[]} */
function methodBoxes() {
  return [...byId('policy-form', HTMLFormElement).querySelectorAll('input[name="method"]')].flatMap((box) =>
    box instanceof HTMLInputElement ? [box] : [],
  );
}

/** @param {SignInPolicy} policy */
function showPolicy(policy) {
  const form = byId('policy-form', HTMLFormElement);
  for (const box of methodBoxes()) box.checked = policy.allowedMethods.includes(box.value);
  checkbox(form, 'requireMfa').checked = policy.requireMfa;
  form.hidden = false;
}

// The organisation's admins see and change it; anyone else gets the API's refusal in place of the form.
async function loadPolicy() {
  const form = byId('policy-form', HTMLFormElement);
  $('policy-error').textContent = '';
  try {
    showPolicy(await json('GET', orgPath('/sign-in-policy')));
  } catch (error) {
    form.hidden = true;
    showError($('policy-error'), error);
  }
}

byId('policy-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = byId('policy-form', HTMLFormElement);
  $('policy-error').textContent = '';
  const body = {
    requireMfa: checkbox(form, 'requireMfa').checked,
    allowedMethods: methodBoxes()
      .filter((box) => box.checked)
      .map((box) => box.value),
  };
  try {
    /** @type {SignInPolicy} */
    const policy = await json('PUT', orgPath('/sign-in-policy'), body);
    showPolicy(policy);
    notice(
      'Sign-in policy saved: ' +
        policy.allowedMethods.join(', ') +
        (policy.requireMfa ? ', a second factor required.' : ', no second factor required.'),
    );
  } catch (error) {
    // A refusal (SIGN_IN_POLICY_LOCKOUT, VALIDATION_FAILED) changed nothing: the boxes stay as chosen, to correct.
    showError($('policy-error'), error);
  }
});

// ——— shared by the webhook and API key panels ———

/**
 * Whether the API refused because this person is not an admin of the organisation (not a suspension, not a lost session).
 * @param {unknown} error
 */
function notAdmin(error) {
  return error instanceof ApiError && error.status === 403 && error.code === 'FORBIDDEN';
}

/**
 * The values of a form's checked boxes of this name.
 * @param {HTMLFormElement} form
 * @param {string} name
 * @returns {string[]}
 */
function checkedValues(form, name) {
  return [...form.querySelectorAll('input[type="checkbox"][name="' + name + '"]')].flatMap((box) =>
    box instanceof HTMLInputElement && box.checked ? [box.value] : [],
  );
}

/**
 * A table row's cell holding a line of text and, below it, a muted one.
 * @param {string} text
 * @param {string} [below]
 * @param {string} [className]
 */
function twoLineCell(text, below, className) {
  const td = cell(text, className);
  if (below) {
    const small = document.createElement('div');
    small.className = 'muted';
    small.textContent = below;
    td.append(small);
  }
  return td;
}

// ——— webhook endpoints ———

const DELIVERY_PAGE = 20;
/** @type {{ endpoint: WebhookEndpoint | null, cursor: string | null, next: string | null }} */
const deliveriesShown = { endpoint: null, cursor: null, next: null };

/** What this page says to a member who is not an admin, in place of a panel. */
const ADMINS_ONLY = 'Only the organisation’s admins (OrganizationAdmin) can see and manage ';

async function loadWebhooks() {
  $('webhooks-error').textContent = '';
  try {
    /** @type {{ endpoints: WebhookEndpoint[] }} */
    const { endpoints } = await json('GET', orgPath('/webhook-endpoints'));
    $('webhook-rows').replaceChildren(...endpoints.map(webhookRow));
    if (endpoints.length === 0) $('webhook-rows').append(emptyRow('No webhook endpoints yet.', 5));
    $('webhook-form').hidden = false;
    $('webhook-list').hidden = false;
    const shown = deliveriesShown.endpoint;
    if (shown && !endpoints.some((e) => e.endpointId === shown.endpointId)) closeDeliveries();
  } catch (error) {
    $('webhook-form').hidden = true;
    $('webhook-list').hidden = true;
    closeDeliveries();
    if (notAdmin(error)) $('webhooks-error').textContent = ADMINS_ONLY + 'webhook endpoints.';
    else showError($('webhooks-error'), error);
  }
}

/**
 * @param {string} text
 * @param {number} columns
 */
function emptyRow(text, columns) {
  const tr = document.createElement('tr');
  const td = cell(text, 'muted');
  td.colSpan = columns;
  tr.append(td);
  return tr;
}

/** @param {WebhookEndpoint} endpoint */
function endpointState(endpoint) {
  if (endpoint.state === 'enabled') return endpoint.failingSince ? 'enabled, failing since ' + stamp(endpoint.failingSince) : 'enabled';
  return endpoint.disabledReason === 'failing' ? 'disabled after days of failures' : 'disabled by an admin';
}

/**
 * How an endpoint's buttons name it: its description and URL, or the URL alone.
 * @param {WebhookEndpoint} endpoint
 */
function endpointLabel(endpoint) {
  return endpoint.description ? endpoint.description + ' (' + endpoint.url + ')' : endpoint.url;
}

/** @param {WebhookEndpoint} endpoint */
function webhookRow(endpoint) {
  const tr = document.createElement('tr');
  const label = endpointLabel(endpoint);
  const actions = cell('', 'actions');
  const result = document.createElement('output');
  result.className = 'error';
  const enabled = endpoint.state === 'enabled';
  actions.append(
    button('Deliveries', () => showDeliveries(endpoint), 'Deliveries of ' + label),
    button('Rotate secret', () => rotateSecret(endpoint, result), 'Rotate the secret of ' + label),
    button(
      enabled ? 'Disable' : 'Enable',
      () => setEndpointState(endpoint, enabled ? 'disabled' : 'enabled', result),
      (enabled ? 'Disable ' : 'Enable ') + label,
    ),
    button('Delete', () => deleteEndpoint(endpoint, result), 'Delete ' + label),
    result,
  );
  const stateCell = cell(endpointState(endpoint), enabled ? 'state-on' : 'state-bad');
  tr.append(
    twoLineCell(endpoint.url, endpoint.description ?? undefined, 'wrap mono'),
    cell(endpoint.events.join(', '), 'wrap'),
    stateCell,
    twoLineCell(
      'version ' + endpoint.secretVersion,
      endpoint.previousSecretUntil ? 'the previous one signs too until ' + stamp(endpoint.previousSecretUntil) : undefined,
    ),
    actions,
  );
  return tr;
}

byId('webhook-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = byId('webhook-form', HTMLFormElement);
  $('webhooks-error').textContent = '';
  notice('');
  try {
    const description = field(form, 'description').value.trim();
    /** @type {{ endpoint: WebhookEndpoint, secret: string }} */
    const created = await json('POST', orgPath('/webhook-endpoints'), {
      url: field(form, 'url').value.trim(),
      events: checkedValues(form, 'event'),
      ...(description ? { description } : {}),
    });
    // The one answer that carries the secret: it goes to the dialog and nowhere else.
    const secret = created.secret;
    created.secret = '';
    form.reset();
    await loadWebhooks();
    showToken(secret, {
      title: 'Signing secret of the new endpoint',
      warning:
        'Shown this once. Copy it now into the receiver’s configuration: it verifies the webhook-signature header. It is stored here only sealed and cannot be shown again (rotate it for a new one).',
      copy: 'Copy secret',
    });
    notice('Added the endpoint ' + created.endpoint.url + '.');
  } catch (error) {
    showError($('webhooks-error'), error);
  }
});

$('webhooks-refresh').addEventListener('click', () => void loadWebhooks());

/**
 * @param {WebhookEndpoint} endpoint
 * @param {HTMLOutputElement} result
 */
async function rotateSecret(endpoint, result) {
  const confirmed = await confirmAction({
    title: 'Rotate the signing secret?',
    text: 'A new secret signs every delivery to ' + endpoint.url + ' from now on; the current one still signs beside it for 24 hours.',
    yes: 'Rotate secret',
    no: 'Keep it',
  });
  if (!confirmed) return;
  result.textContent = '';
  try {
    /** @type {{ secret: string }} */
    const rotated = await json('POST', orgPath('/webhook-endpoints/' + endpoint.endpointId + '/rotate-secret'));
    const secret = rotated.secret;
    rotated.secret = '';
    await loadWebhooks();
    const again = () => refocus($('webhook-rows'), 'Rotate the secret of ' + endpointLabel(endpoint), $('webhooks-refresh'));
    showToken(
      secret,
      {
        title: 'New signing secret',
        warning:
          'Shown this once. Copy it now into the receiver’s configuration; the previous secret keeps signing beside it for 24 hours. It cannot be shown again.',
        copy: 'Copy secret',
      },
      again,
    );
    notice('Rotated the secret of ' + endpoint.url + '.');
  } catch (error) {
    showError(result, error);
  }
}

/**
 * @param {WebhookEndpoint} endpoint
 * @param {'enabled' | 'disabled'} wanted
 * @param {HTMLOutputElement} result
 */
async function setEndpointState(endpoint, wanted, result) {
  result.textContent = '';
  try {
    await json('PATCH', orgPath('/webhook-endpoints/' + endpoint.endpointId), { state: wanted });
  } catch (error) {
    showError(result, error);
    return;
  }
  await loadWebhooks();
  // Its deliveries, if shown, are drawn again: a refusal beside one of them may no longer hold.
  if (deliveriesShown.endpoint?.endpointId === endpoint.endpointId) await loadDeliveries(deliveriesShown.cursor);
  const enabled = wanted === 'enabled';
  // The redrawn row's button now says the opposite: focus goes there, ready to undo.
  refocus($('webhook-rows'), (enabled ? 'Disable ' : 'Enable ') + endpointLabel(endpoint), $('webhooks-refresh'));
  notice(
    enabled
      ? 'Enabled ' + endpoint.url + ': deliveries go to it again.'
      : 'Disabled ' + endpoint.url + ': nothing is sent to it until it is enabled.',
  );
}

/**
 * @param {WebhookEndpoint} endpoint
 * @param {HTMLOutputElement} result
 */
async function deleteEndpoint(endpoint, result) {
  const confirmed = await confirmAction({
    title: 'Delete this endpoint?',
    text: 'Nothing more is sent to ' + endpoint.url + ', and its deliveries are deleted with it.',
    yes: 'Delete endpoint',
    no: 'Keep it',
  });
  if (!confirmed) return;
  result.textContent = '';
  try {
    await api('DELETE', orgPath('/webhook-endpoints/' + endpoint.endpointId));
  } catch (error) {
    showError(result, error);
    return;
  }
  await loadWebhooks();
  $('webhooks-refresh').focus();
  notice('Deleted the endpoint ' + endpoint.url + '.');
}

function closeDeliveries() {
  deliveriesShown.endpoint = null;
  $('deliveries').hidden = true;
  $('delivery-rows').replaceChildren();
}

/** @param {WebhookEndpoint} endpoint */
async function showDeliveries(endpoint) {
  deliveriesShown.endpoint = endpoint;
  $('deliveries-title').textContent = 'Deliveries to ' + endpoint.url;
  $('deliveries').hidden = false;
  await loadDeliveries(null);
  $('deliveries-title').scrollIntoView({ block: 'nearest' });
}

/** @param {string | null} cursor */
async function loadDeliveries(cursor) {
  const endpoint = deliveriesShown.endpoint;
  if (!endpoint) return;
  $('deliveries-error').textContent = '';
  try {
    /** @type {{ deliveries: Delivery[], nextCursor: string | null }} */
    const page = await json(
      'GET',
      orgPath(
        '/webhook-endpoints/' +
          endpoint.endpointId +
          '/deliveries?limit=' +
          DELIVERY_PAGE +
          (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''),
      ),
    );
    deliveriesShown.cursor = cursor;
    deliveriesShown.next = page.nextCursor;
    $('delivery-rows').replaceChildren(...page.deliveries.map((delivery) => deliveryRow(endpoint, delivery)));
    if (page.deliveries.length === 0)
      $('delivery-rows').append(emptyRow('No deliveries yet: one is made for each event the endpoint is sent.', 7));
    byId('deliveries-older', HTMLButtonElement).disabled = page.nextCursor === null;
  } catch (error) {
    showError($('deliveries-error'), error);
  }
}

/** @param {Delivery} delivery */
function lastResult(delivery) {
  if (delivery.attempts === 0) return 'not tried yet';
  const parts = [];
  if (delivery.lastStatus !== null) parts.push('HTTP ' + delivery.lastStatus);
  if (delivery.lastError) parts.push(delivery.lastError);
  return (parts.join(': ') || 'no answer') + ' at ' + stamp(delivery.lastAttemptAt);
}

/**
 * @param {WebhookEndpoint} endpoint
 * @param {Delivery} delivery
 */
function deliveryRow(endpoint, delivery) {
  const tr = document.createElement('tr');
  const actions = cell('', 'actions');
  const result = document.createElement('output');
  result.className = 'error';
  if (delivery.state !== 'succeeded') {
    actions.append(
      button(
        'Retry',
        () => retryDelivery(endpoint, delivery, result),
        'Retry the ' + delivery.eventType + ' delivery of ' + stamp(delivery.createdAt),
      ),
      result,
    );
  }
  tr.append(
    dateCell(delivery.createdAt),
    cell(delivery.eventType, 'mono'),
    cell(delivery.state, delivery.state === 'succeeded' ? 'state-on' : delivery.state === 'failed' ? 'state-bad' : 'state-off'),
    cell(String(delivery.attempts)),
    cell(lastResult(delivery), 'wrap'),
    dateCell(delivery.nextAttemptAt),
    actions,
  );
  return tr;
}

/**
 * @param {WebhookEndpoint} endpoint
 * @param {Delivery} delivery
 * @param {HTMLOutputElement} result
 */
async function retryDelivery(endpoint, delivery, result) {
  result.textContent = '';
  try {
    await api('POST', orgPath('/webhook-endpoints/' + endpoint.endpointId + '/deliveries/' + delivery.deliveryId + '/retry'));
  } catch (error) {
    showError(result, error);
    return;
  }
  await loadDeliveries(deliveriesShown.cursor);
  $('deliveries-newest').focus();
  notice('The ' + delivery.eventType + ' delivery of ' + stamp(delivery.createdAt) + ' is pending again: it is sent shortly.');
}

$('deliveries-newest').addEventListener('click', () => void loadDeliveries(null));
$('deliveries-older').addEventListener('click', () => void loadDeliveries(deliveriesShown.next));
$('deliveries-close').addEventListener('click', () => {
  closeDeliveries();
  $('webhooks-refresh').focus();
});

// ——— API keys ———

const API_KEY_PAGE = 20;
/** @type {{ cursor: string | null, next: string | null }} */
const apiKeyPages = { cursor: null, next: null };

/** @param {string | null} cursor */
async function loadApiKeys(cursor) {
  $('api-keys-error').textContent = '';
  try {
    /** @type {{ apiKeys: ApiKey[], nextCursor: string | null }} */
    const page = await json('GET', orgPath('/api-keys?limit=' + API_KEY_PAGE + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '')));
    apiKeyPages.cursor = cursor;
    apiKeyPages.next = page.nextCursor;
    $('api-key-rows').replaceChildren(...page.apiKeys.map(apiKeyRow));
    if (page.apiKeys.length === 0) $('api-key-rows').append(emptyRow('No API keys yet.', 7));
    byId('api-keys-next', HTMLButtonElement).disabled = page.nextCursor === null;
    $('api-key-form').hidden = false;
    $('api-key-list').hidden = false;
  } catch (error) {
    $('api-key-form').hidden = true;
    $('api-key-list').hidden = true;
    if (notAdmin(error)) $('api-keys-error').textContent = ADMINS_ONLY + 'API keys.';
    else showError($('api-keys-error'), error);
  }
}

/** @param {ApiKey} key */
function apiKeyRow(key) {
  const tr = document.createElement('tr');
  const actions = cell('', 'actions');
  const result = document.createElement('output');
  result.className = 'error';
  actions.append(
    button('Roll', () => rollApiKey(key, result), 'Roll the API key ' + key.name + ' (' + key.prefix + ')'),
    button('Revoke', () => revokeApiKey(key, result), 'Revoke the API key ' + key.name + ' (' + key.prefix + ')'),
    result,
  );
  const expired = key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now();
  tr.append(
    twoLineCell(key.name, key.rateLimitPerMinute === null ? undefined : key.rateLimitPerMinute + ' requests a minute', 'wrap'),
    cell(key.prefix + '…', 'mono'),
    cell(key.scopes.join(', '), 'wrap'),
    dateCell(key.createdAt),
    expiryCell(key.expiresAt, expired),
    dateCell(key.lastUsedAt, 'never'),
    actions,
  );
  return tr;
}

/**
 * When a key stops: `never`, `in 3 months`, or `expired 2 h ago` (in red); the absolute form on hover.
 * @param {string | null} expiresAt
 * @param {boolean} expired
 */
function expiryCell(expiresAt, expired) {
  const td = cell(expiresAt === null ? 'never' : '', expired ? 'state-bad' : '');
  if (expiresAt !== null) td.append(dateElement(expiresAt, expired ? 'expired ' : ''));
  return td;
}

/**
 * @param {string} key
 * @param {string} title
 * @param {() => void} [refocusTo]
 */
function showApiKey(key, title, refocusTo) {
  showToken(
    key,
    {
      title,
      warning:
        'Shown this once. Copy it now into the client that uses it: only a hash of it is kept, so it cannot be shown again (roll it for a new one).',
      copy: 'Copy key',
    },
    refocusTo,
  );
}

byId('api-key-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = byId('api-key-form', HTMLFormElement);
  $('api-keys-error').textContent = '';
  notice('');
  try {
    const expiresOn = field(form, 'expiresOn').value;
    const limit = field(form, 'rateLimitPerMinute').value;
    /** @type {{ apiKey: ApiKey, key: string }} */
    const created = await json('POST', orgPath('/api-keys'), {
      name: field(form, 'name').value.trim(),
      scopes: checkedValues(form, 'scope'),
      // The chosen day's start, UTC: the same instant whatever the browser's zone.
      ...(expiresOn ? { expiresAt: expiresOn + 'T00:00:00Z' } : {}),
      ...(limit ? { rateLimitPerMinute: Number(limit) } : {}),
    });
    // The one answer that carries the key: it goes to the dialog and nowhere else.
    const key = created.key;
    created.key = '';
    form.reset();
    await loadApiKeys(null);
    showApiKey(key, 'New API key ' + created.apiKey.name);
    notice('Created the API key ' + created.apiKey.name + ' (' + created.apiKey.prefix + '…).');
  } catch (error) {
    showError($('api-keys-error'), error);
  }
});

/** The overlap chosen for rolls, in seconds, and in words. */
function rollOverlap() {
  const select = byId('api-key-overlap', HTMLSelectElement);
  return { seconds: Number(select.value), words: /** @type {HTMLOptionElement} */ (select.selectedOptions[0]).textContent ?? '' };
}

/**
 * @param {ApiKey} key
 * @param {HTMLOutputElement} result
 */
async function rollApiKey(key, result) {
  const overlap = rollOverlap();
  const confirmed = await confirmAction({
    title: 'Roll this API key?',
    text:
      'A new key replaces ' +
      key.name +
      ' (' +
      key.prefix +
      '…) with the same scopes; the old one keeps working for ' +
      (overlap.seconds === 0 ? 'no time: it stops at once.' : overlap.words + ', then stops.'),
    yes: 'Roll key',
    no: 'Keep it',
  });
  if (!confirmed) return;
  result.textContent = '';
  try {
    /** @type {{ apiKey: ApiKey, key: string }} */
    const rolled = await json('POST', orgPath('/api-keys/' + key.apiKeyId + '/roll'), { overlapSeconds: overlap.seconds });
    const secret = rolled.key;
    rolled.key = '';
    await loadApiKeys(apiKeyPages.cursor);
    // The old key's row, redrawn: its Roll button is where focus goes back to.
    showApiKey(secret, 'New key for ' + rolled.apiKey.name, () =>
      refocus($('api-key-rows'), 'Roll the API key ' + key.name + ' (' + key.prefix + ')', $('api-keys-first')),
    );
    notice(
      'Rolled the API key ' +
        key.name +
        ': the new one is ' +
        rolled.apiKey.prefix +
        '…; the old one stops ' +
        (overlap.seconds === 0 ? 'now.' : 'in ' + overlap.words + '.'),
    );
  } catch (error) {
    showError(result, error);
  }
}

/**
 * @param {ApiKey} key
 * @param {HTMLOutputElement} result
 */
async function revokeApiKey(key, result) {
  const confirmed = await confirmAction({
    title: 'Revoke this API key?',
    text: 'The key ' + key.name + ' (' + key.prefix + '…) is refused from now on. This cannot be undone.',
    yes: 'Revoke key',
    no: 'Keep it',
  });
  if (!confirmed) return;
  result.textContent = '';
  try {
    await api('DELETE', orgPath('/api-keys/' + key.apiKeyId));
  } catch (error) {
    showError(result, error);
    return;
  }
  await loadApiKeys(apiKeyPages.cursor);
  $('api-keys-first').focus();
  notice('Revoked the API key ' + key.name + ' (' + key.prefix + '…).');
}

$('api-keys-first').addEventListener('click', () => void loadApiKeys(null));
$('api-keys-next').addEventListener('click', () => void loadApiKeys(apiKeyPages.next));

// ——— start ———

async function loadViews() {
  $('export-list').replaceChildren();
  await Promise.all([
    loadExports(null),
    loadInvites(),
    loadHistory(null),
    loadMembers(null),
    loadSyrve(),
    loadPasskeys(),
    loadPolicy(),
    loadWebhooks(),
    loadApiKeys(null),
    loadSessions(),
  ]);
}

async function start() {
  $('sign-in').hidden = true;
  $('sign-in-error').textContent = '';
  /** @type {[{ memberships: Membership[] }, { context: Context } | null]} */
  const [{ memberships }, current] = await Promise.all([
    json('GET', '/auth/memberships'),
    json('GET', '/auth/context').catch((error) => {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }),
  ]);
  state.memberships = memberships;
  $('context').hidden = false;
  $('sign-out').hidden = false;
  $('views').hidden = false;
  if (current) {
    state.organizationId = current.context.organizationId;
    state.locationId = current.context.locationId;
    $('context-status').textContent = 'as ' + current.context.roleCode;
    renderContext();
  } else {
    // The organisation the session was signed in to (its row in the session list): choosing another would switch it.
    /** @type {{ sessions: Array<{ current: boolean, organizationId: string }> }} */
    const { sessions } = await json('GET', '/auth/sessions');
    const own = sessions.find((s) => s.current);
    const first =
      memberships.find((m) => own !== undefined && m.organizationId === own.organizationId) ||
      memberships.find((m) => m.roleCode === 'OrganizationAdmin') ||
      memberships[0];
    if (!first) {
      notice('This account holds no role in any organisation.');
      return;
    }
    await useContext(first.organizationId, null);
  }
  await loadViews();
  document.body.dataset.ready = 'yes';
}

if (meta('signed-in') === 'yes') {
  start().catch((error) => {
    if (!(error instanceof ApiError && error.status === 401)) notice('The console could not load.', error);
  });
} else {
  showSignIn('');
}

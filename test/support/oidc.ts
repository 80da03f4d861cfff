// Drives the OIDC sign-in as a browser would, with fetch and small cookie jars: /start's redirect to the local
// provider, its login and consent forms (their actions read from the HTML), and the redirect back to our callback.
/** Sends a request for one of our app's URLs (the tests' in-process app) with the browser's cookies for it. */
export type AppFetch = (url: URL, cookie: string) => Promise<Response>;

interface Cookie {
  name: string;
  value: string;
  path: string;
}

/** Cookies of one origin, scoped by path; a Max-Age=0 or past Expires deletes one. */
export class CookieJar {
  private readonly cookies = new Map<string, Cookie>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const path = attribute('path') ?? '/';
      const expires = attribute('expires');
      const gone = attribute('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now()) || value === '';
      if (gone) this.cookies.delete(`${name}@${path}`);
      else this.cookies.set(`${name}@${path}`, { name, value, path });
    }
  }

  /** The value of one cookie, whatever its path. */
  get(name: string): string | undefined {
    return [...this.cookies.values()].find((cookie) => cookie.name === name)?.value;
  }

  header(url: URL): string {
    return [...this.cookies.values()]
      .filter((cookie) => url.pathname.startsWith(cookie.path))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }
}

export interface BrowserFlowOptions {
  /** Our app's origin: URLs there go to `app`, anything else to the provider with fetch. */
  appOrigin: string;
  app: AppFetch;
  /** What is typed into the provider's login form. */
  email: string;
  /** Stop when the provider redirects to our callback and return that URL instead of following it. */
  stopAtCallback?: boolean;
  /** This browser's cookies for our app (a fresh jar unless given): /start's binding cookie lands here. */
  appJar?: CookieJar;
}

export interface BrowserFlowResult {
  /** The answer of the last request (our callback, unless the flow stopped earlier). */
  response: Response;
  /** The callback URL the provider sent the browser to, with its code and state. */
  callbackUrl?: URL;
  /** Every URL visited, in order. */
  visited: URL[];
  /** The browser's cookies for our app, e.g. to deliver the callback later from this same browser. */
  appJar: CookieJar;
}

type Step = { url: URL; method: 'GET' | 'POST'; form?: URLSearchParams };

/** Follows the flow from `start` (our /auth/oidc/{provider}/start URL) to our callback's answer. */
export async function signInThroughBrowser(start: URL, options: BrowserFlowOptions): Promise<BrowserFlowResult> {
  const jar = new CookieJar();
  const appJar = options.appJar ?? new CookieJar();
  const visited: URL[] = [];
  let next: Step | undefined = { url: start, method: 'GET' };
  let response: Response | undefined;
  let callbackUrl: URL | undefined;
  for (let step = 0; next !== undefined; step++) {
    if (step > 20) throw new Error('the sign-in flow did not end within 20 requests');
    const current: Step = next;
    visited.push(current.url);
    next = undefined;
    if (current.url.origin === options.appOrigin && current.url.pathname.endsWith('/callback')) {
      callbackUrl = current.url;
      if (options.stopAtCallback === true) break;
    }
    let answer: Response;
    if (current.url.origin === options.appOrigin) {
      answer = await options.app(current.url, appJar.header(current.url));
      appJar.store(answer);
    } else {
      answer = await send(jar, current);
    }
    response = answer;
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400 && location !== null) {
      next = { url: new URL(location, current.url), method: 'GET' };
    } else if (answer.status === 200 && (answer.headers.get('content-type') ?? '').includes('text/html')) {
      next = formSubmission(await answer.text(), current.url, options.email);
    }
  }
  if (response === undefined) throw new Error('no request was made');
  return { response, ...(callbackUrl !== undefined ? { callbackUrl } : {}), visited, appJar };
}

/** One request to the provider, with the jar's cookies, redirects left to the caller. */
async function send(jar: CookieJar, step: Step): Promise<Response> {
  const cookie = jar.header(step.url);
  const sent = await fetch(step.url, {
    method: step.method,
    redirect: 'manual',
    headers: {
      ...(cookie !== '' ? { cookie } : {}),
      ...(step.form !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(step.form !== undefined ? { body: step.form.toString() } : {}),
  });
  jar.store(sent);
  return sent;
}

/** The provider's login form (prompt=login) or consent form (prompt=consent), filled in and ready to post. */
function formSubmission(html: string, page: URL, email: string): Step {
  const action = /<form[^>]*\saction="([^"]+)"/.exec(html)?.[1];
  if (action === undefined) throw new Error(`the provider's page has no form: ${html.slice(0, 200)}`);
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\s*\/?>/g)) form.set(name!, value!);
  if (form.get('prompt') === 'login') {
    form.set('login', email);
    form.set('password', 'the login form ignores it');
  }
  return { url: new URL(action.replaceAll('&amp;', '&'), page), method: 'POST', form };
}

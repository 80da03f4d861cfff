// A browser's share of the console for plain HTTP tests: a cookie jar that honours Path and Max-Age, the page's CSRF token
// read from its meta tag, and the same-origin headers a browser would send.
export type Fetcher = (path: string, init: RequestInit) => Response | Promise<Response>;

export interface StoredCookie {
  name: string;
  value: string;
  path: string;
  /** The attributes as the server wrote them, lowercased: `httponly`, `samesite=strict`, `secure`, `max-age=…`. */
  attributes: string[];
}

export class ConsoleClient {
  readonly cookies = new Map<string, StoredCookie>();
  /** Every Set-Cookie header seen, as sent. */
  readonly setCookieHeaders: string[] = [];
  csrfToken = '';

  constructor(
    private readonly fetcher: Fetcher,
    readonly origin: string,
  ) {}

  /** Loads /console as a browser would, keeping its cookie and the page's CSRF token. */
  async openPage(): Promise<Response> {
    const response = await this.send('GET', '/console');
    const html = await response.clone().text();
    this.csrfToken = /<meta name="csrf-token" content="([^"]*)">/.exec(html)?.[1] ?? '';
    return response;
  }

  /** A same-origin request of the console's page; `csrf: false` leaves the token out, `headers` adds or overrides. */
  async send(
    method: string,
    path: string,
    options: { body?: unknown; csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' };
    if (method !== 'GET' && method !== 'HEAD') headers.origin = this.origin;
    if (options.csrf !== false && this.csrfToken !== '') headers['x-csrf-token'] = this.csrfToken;
    const cookie = [...this.cookies.values()]
      .filter((c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || path.startsWith(`${c.path}?`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    if (cookie !== '') headers.cookie = cookie;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await this.fetcher(path, {
      method,
      headers: { ...headers, ...options.headers },
      ...(body !== undefined ? { body } : {}),
    });
    this.keep(response);
    if (response.headers.get('content-type')?.startsWith('application/json') === true && path.startsWith('/console/session')) {
      const answer = (await response.clone().json()) as { csrfToken?: string };
      if (typeof answer.csrfToken === 'string') this.csrfToken = answer.csrfToken;
    }
    return response;
  }

  private keep(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      this.setCookieHeaders.push(header);
      const [pair = '', ...rest] = header.split(';').map((part) => part.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = decodeURIComponent(pair.slice(at + 1));
      const attributes = rest.map((attribute) => attribute.toLowerCase());
      const path = rest.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const maxAge = attributes.find((a) => a.startsWith('max-age='));
      if (value === '' || maxAge === 'max-age=0') this.cookies.delete(name);
      else this.cookies.set(name, { name, value, path, attributes });
    }
  }
}

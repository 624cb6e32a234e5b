// A user agent over plain HTTP with a cookie jar, for tests and benchmarks that
// sign in and consent without a browser: reads forms (and their CSRF tokens)
// from Keyflow's pages and submits them, following redirects by hand.
export class HttpUser {
  private cookies = new Map<string, string>();

  constructor(readonly base: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (attrs.some((a) => /max-age=0/i.test(a.trim())) || value === '') this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
  }

  /** One request, cookies included, no redirect following. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', this.cookieHeader());
    const res = await fetch(new URL(url, this.base), { ...init, headers, redirect: 'manual' });
    this.remember(res);
    return res;
  }

  /** Follows redirects inside Keyflow; stops at the first redirect elsewhere and returns its URL. */
  async follow(res: Response): Promise<{ res: Response; url: string; external?: URL }> {
    let url = res.url;
    while (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, url);
      if (next.origin !== new URL(this.base).origin) return { res, url, external: next };
      url = next.href;
      res = await this.request(url);
    }
    return { res, url };
  }

  async get(url: string) {
    return this.follow(await this.request(url));
  }

  /** Submits a form: the page's hidden fields (csrf, request) plus `fields`. */
  async submit(pageHtml: string, action: string, fields: Record<string, string>) {
    const form = new RegExp(`<form[^>]*action="${action.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*>([\\s\\S]*?)</form>`).exec(pageHtml);
    if (!form) throw new Error(`no form posting to ${action} on the page`);
    const body = new URLSearchParams();
    for (const m of form[1]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) body.set(m[1]!, decodeEntities(m[2]!));
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    return this.follow(await this.request(action, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
  }

  /** Signs in with email and password from the page the flow is on (which must be the sign-in page). */
  async signIn(loginPage: { res: Response; url: string }, email: string, password: string) {
    const page = await loginPage.res.text();
    return this.submit(page, '/login', { email, password });
  }
}

function decodeEntities(s: string): string {
  return s.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}

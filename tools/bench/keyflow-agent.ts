// A virtual RP's user agent on Keyflow: a user created in the store, signed in
// over HTTP on its first authorization, consenting once per client (Keyflow
// then remembers the consent). Shared by every benchmark (rp.ts signedInAgent,
// the compare targets).
import type { Store } from '../../lib/store/db.js';
import { HttpUser } from '../fixtures/http-user.js';
import { newUser } from '../fixtures/users.js';

const PASSWORD = 'benchmark password 1';

export class KeyflowAgent {
  readonly http: HttpUser;

  private constructor(
    base: string,
    readonly email: string,
  ) {
    this.http = new HttpUser(base);
  }

  static async create(store: Store, base: string, prefix: string): Promise<KeyflowAgent> {
    const { email } = await newUser({ store }, { password: PASSWORD, prefix });
    return new KeyflowAgent(base, email);
  }

  /**
   * A sign-in from scratch, as a new browser makes it: the sign-in page (its
   * CSRF token and cookie), then the email and password; throws unless it
   * ends signed in (the sign-in page not shown again).
   */
  async signInFresh(): Promise<void> {
    const browser = new HttpUser(this.http.base);
    const page = await browser.get('/login');
    const done = await browser.submit(await page.res.text(), '/login', { email: this.email, password: PASSWORD });
    const html = await done.res.text();
    if (done.res.status !== 200 || html.includes('action="/login"')) throw new Error(`sign-in ended at ${done.url} (${done.res.status})`);
  }

  /** One request with the session's cookies, redirects not followed. */
  request(url: string): Promise<Response> {
    return this.http.request(url);
  }

  /** Authorizes, signing in and consenting when Keyflow asks; returns the redirect to the RP (with its code). */
  async authorizeFirst(authorizeUrl: string): Promise<URL> {
    let step = await this.http.get(authorizeUrl);
    for (let pages = 0; !step.external && pages < 3; pages++) {
      const html = await step.res.text();
      if (html.includes('action="/login"')) step = await this.http.submit(html, '/login', { email: this.email, password: PASSWORD });
      else if (html.includes('action="/consent"')) step = await this.http.submit(html, '/consent', { decision: 'allow' });
      else break;
    }
    if (!step.external) throw new Error(`authorization did not reach the redirect URI (stopped at ${step.url}, status ${step.res.status})`);
    return step.external;
  }
}

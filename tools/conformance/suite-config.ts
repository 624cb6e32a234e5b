// The conformance suite's test configuration for Keyflow: where discovery is,
// the clients (made through the CLI) or, for dynamic registration, the
// initial access token the suite registers its own with, and the "browser":
// the suite's HtmlUnit automation of Keyflow's sign-in, consent and sign-out
// pages, with per-module overrides for modules that expect an error page or a
// second sign-in (their screenshots are the REVIEW results).
import type { ConfigKind } from './plans.js';

export interface SuiteClient {
  client_id: string;
  client_secret: string;
}

export interface SuiteConfigInput {
  issuer: string;
  alias: string;
  user: { email: string; password: string };
  scope: string;
  /** Static clients: two per plan (the suite's "client" and "client2"). */
  clients?: [SuiteClient, SuiteClient];
  /** Dynamic registration: the bearer token the suite presents at the registration endpoint. */
  initialAccessToken?: string;
}

export type Command = (string | number)[];
export interface Task {
  task: string;
  match: string;
  optional?: boolean;
  commands?: Command[];
}

/**
 * The browser's steps through Keyflow's own pages, shared by every plan's
 * configuration: sign in (the sign-in page shown again is the screenshot a
 * reviewer checks with `screenshot`), consent, and the suite's callback page.
 */
export function signInSteps(issuer: string, user: { email: string; password: string }) {
  const login = (screenshot = false): Task => ({
    task: 'Login',
    optional: true,
    match: `${issuer}/login*`,
    commands: [
      // prompt=login, max_age=1: the sign-in page shown again is the screenshot a reviewer checks.
      ...(screenshot ? [['wait', 'xpath', '//*', 10, 'Sign in', 'update-image-placeholder-optional']] : []),
      ['text', 'id', 'email', user.email, 'optional'],
      ['text', 'id', 'password', user.password],
      ['click', 'css', "form[action='/login'] button[type='submit']"],
    ],
  });
  const consent: Task = {
    task: 'Consent',
    optional: true,
    match: `${issuer}/consent*`,
    commands: [['click', 'css', "button[name='decision'][value='allow']"]],
  };
  const callback: Task = { task: 'Verify Complete', match: '*/test/*/callback*', commands: [['wait', 'id', 'submission_complete', 10]] };
  return { authorize: `${issuer}/api/oauth/authorize*`, login, consent, callback };
}

export function suiteConfig(kind: ConfigKind, input: SuiteConfigInput): Record<string, unknown> {
  const { issuer, user, scope } = input;
  const { authorize, login, consent, callback } = signInSteps(issuer, user);
  const endSession = `${issuer}/api/oauth/end_session*`;
  const signIn = (screenshot = false) => ({ match: authorize, tasks: [login(screenshot), consent, callback] });

  // end_session: "Sign out of Keyflow?" (a form whose button signs out), then the post-logout redirect or the signed-out page.
  const confirmSignOut: Task = {
    task: 'Confirm sign-out',
    optional: true,
    match: endSession,
    commands: [['click', 'css', "form[action='/api/oauth/end_session'] button[type='submit']"]],
  };
  const signOut = { match: endSession, tasks: [confirmSignOut, { task: 'Verify Complete', match: '*/test/*/post_logout_redirect*' }] };
  const signOutScreenshot = (text: string, confirm: boolean) => ({
    browser: [
      signIn(),
      {
        match: endSession,
        tasks: [
          ...(confirm ? [confirmSignOut] : []),
          { task: `Screenshot: ${text}`, match: endSession, commands: [['wait', 'xpath', '//*', 10, text, 'update-image-placeholder']] },
        ],
      },
    ],
  });
  const errorPage = {
    browser: [
      {
        comment: 'an error page, no redirect',
        match: authorize,
        tasks: [
          { task: 'Expect the error page', match: authorize, commands: [['wait', 'xpath', '//*', 10, 'Invalid redirect URI', 'update-image-placeholder']] },
        ],
      },
    ],
  };

  const dynamic = kind === 'dynamic' || kind === 'dynamic-backchannel';
  if (dynamic && !input.initialAccessToken) throw new Error('dynamic registration needs an initial access token');
  if (!dynamic && !input.clients) throw new Error('static clients are missing');
  const client = (n: 0 | 1) =>
    dynamic
      ? { client_name: `Keyflow conformance client ${n + 1}`, initial_access_token: input.initialAccessToken, scope }
      : { client_id: input.clients![n].client_id, client_secret: input.clients![n].client_secret, scope };

  return {
    alias: input.alias,
    description: `Keyflow OP (${kind} clients)`,
    server: { discoveryUrl: `${issuer}/.well-known/openid-configuration`, login_hint: user.email },
    client: client(0),
    client2: client(1),
    ...(dynamic ? {} : { client_secret_post: { client_id: input.clients![0].client_id, client_secret: input.clients![0].client_secret } }),
    browser: [signIn(), signOut],
    override: {
      'oidcc-prompt-login': { browser: [signIn(true)] },
      'oidcc-max-age-1': { browser: [signIn(true)] },
      // Dynamic registration with a logo, privacy policy or terms: the sign-in page showing them (the client's card).
      'oidcc-registration-logo-uri': { browser: [signIn(true)] },
      'oidcc-registration-policy-uri': { browser: [signIn(true)] },
      'oidcc-registration-tos-uri': { browser: [signIn(true)] },
      'oidcc-ensure-registered-redirect-uri': errorPage,
      // Dynamic plan: no redirect_uri, or one whose query differs from the registered one.
      'oidcc-ensure-redirect-uri-in-authorization-request': errorPage,
      'oidcc-redirect-uri-query-mismatch': errorPage,
      'oidcc-redirect-uri-query-added': errorPage,
      // RP-initiated logout where the OP must not redirect back: a page the reviewer checks.
      'oidcc-rp-initiated-logout-bad-post-logout-redirect-uri': signOutScreenshot('Sign out of Keyflow?', false),
      'oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri': signOutScreenshot('Sign out of Keyflow?', false),
      'oidcc-rp-initiated-logout-no-id-token-hint': signOutScreenshot('Sign out of Keyflow?', false),
      'oidcc-rp-initiated-logout-modified-id-token-hint': signOutScreenshot('Sign-out failed', false),
      'oidcc-rp-initiated-logout-bad-id-token-hint': signOutScreenshot('Sign-out failed', false),
      'oidcc-rp-initiated-logout-no-params': signOutScreenshot('You are signed out', true),
      'oidcc-rp-initiated-logout-no-post-logout-redirect-uri': signOutScreenshot('You are signed out', true),
      'oidcc-rp-initiated-logout-only-state': signOutScreenshot('You are signed out', true),
    },
  };
}

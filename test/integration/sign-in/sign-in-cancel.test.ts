// Cancelling a sign-in that an application asked for: the sign-in page of an
// authorization request offers "Cancel and return to <app>", and the
// application gets access_denied with its state and iss at its redirect URI
// (OIDC Core §3.1.2.6), as when consent is denied. Only with the page's CSRF
// token, only in the browser that started the request, and only once.
import { useTestApi } from '../../support/harness.js';
import { flowAuthorizeUrl, FLOW_REDIRECT, newTestRp } from '../../support/token-flow.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const api = useTestApi();

/** A new browser on the sign-in page of an authorization request: the browser and the page. */
async function atSignIn() {
  const rp = await newTestRp(api, { name: 'Cancel RP' });
  const agent = new HttpUser(api.issuer);
  const url = new URL(flowAuthorizeUrl(api, rp, 'openid', 'a-verifier-of-enough-length-for-pkce-0123456789', { state: 'cancel-state' }));
  const step = await agent.get(url.href);
  expect(step.url).toContain('/login');
  return { agent, page: await step.res.text() };
}

it('answers the application access_denied, with its state and iss', async () => {
  const { agent, page } = await atSignIn();
  expect(page).toContain('Cancel and return to Cancel RP');
  const back = await agent.submit(page, '/login/cancel', {});
  expect(back.external).toBeDefined();
  const to = back.external!;
  expect([to.origin + to.pathname, to.searchParams.get('error'), to.searchParams.get('state'), to.searchParams.get('iss')]).toEqual([
    FLOW_REDIRECT,
    'access_denied',
    'cancel-state',
    api.issuer,
  ]);
  // The request is over: cancelling again finds nothing waiting.
  const again = await agent.submit(page, '/login/cancel', {});
  expect([again.res.status, again.external]).toEqual([400, undefined]);
});

it('refuses a cancel without the CSRF token, or from another browser, and the request still waits', async () => {
  const { agent, page } = await atSignIn();
  const forged = await agent.submit(page, '/login/cancel', { csrf: 'forged' });
  expect([forged.res.status, forged.external]).toEqual([400, undefined]);
  const stranger = await new HttpUser(api.issuer).submit(page, '/login/cancel', {});
  expect(stranger.external).toBeUndefined();
  expect([400, 403]).toContain(stranger.res.status);
  // Still waiting: the real browser can cancel it.
  const back = await agent.submit(page, '/login/cancel', {});
  expect(back.external?.searchParams.get('error')).toBe('access_denied');
});

it('is not offered on a sign-in page of no authorization request', async () => {
  const page = await (await fetch(`${api.issuer}/login`)).text();
  expect(page).not.toContain('/login/cancel');
});

// The implicit flow (OIDC Core §3.2) in headless Chromium: the browser follows
// Keyflow's 303 and lands on the RP's page with the tokens in the fragment,
// where the page's script reads them; the RP's server never sees them (the
// fragment is not sent), and nothing is in the query.
import { randomBytes } from 'node:crypto';
import { createClient } from '../../../lib/store/clients.js';
import { useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { startRpSite, type RpSite } from '../../support/rp-site.js';
import { jwtClaims } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';

const PASSWORD = 'implicit browser password';
const RP_NAME = 'Implicit browser RP';
const TIMEOUT = 60_000;

const browser = useBrowser();
let site: RpSite;

const api = useLocalhostApi();
beforeAll(async () => {
  site = await startRpSite();
});
afterAll(async () => {
  await site?.close();
});

const newPage = browser.newPage;

const random = () => randomBytes(12).toString('base64url');

describe('the implicit flow in a browser', () => {
  it(
    'brings id_token token to the RP page in the fragment: readable by its script, never sent to its server',
    async () => {
      const { email, user } = await newUser(api.deps, { prefix: 'implicit-browser', password: PASSWORD, name: 'Implicit Browser' });
      // A client registered for the implicit flow (as dynamic registration records it).
      const { client } = await createClient(
        api.deps.store,
        {
          name: RP_NAME,
          redirectUris: [{ type: 'equals', value: site.redirectUri }],
          allowedScopes: ['openid', 'profile'],
          idTokenSignedResponseAlg: 'RS256',
          public: true,
          isVerified: true,
        },
        { grantTypes: ['implicit'], responseTypes: ['id_token token'] },
      );
      const params = {
        response_type: 'id_token token',
        client_id: client._id,
        redirect_uri: site.redirectUri,
        scope: 'openid profile',
        state: `st-${random()}`,
        nonce: `n-${random()}`,
      };
      const page = await newPage();
      await page.goto(`${api.issuer}/api/oauth/authorize?${new URLSearchParams(params)}`);
      await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('heading', { name: `Allow ${RP_NAME}?` }).waitFor();
      await page.getByRole('button', { name: 'Allow', exact: true }).click();

      // The RP's server got a plain GET of its callback: no query, no body, no token.
      const hit = await site.nextHit();
      expect([hit.method, [...hit.query], hit.form]).toEqual(['GET', [], null]);
      await page.waitForURL((url) => url.pathname === '/cb' && url.hash.length > 1);

      // What the page's own script reads.
      const fromScript = new URLSearchParams(await page.evaluate<string>('location.hash.slice(1)'));
      expect(Object.fromEntries(fromScript)).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: '3600',
        scope: 'openid profile',
        id_token: expect.any(String),
        state: params.state,
        iss: api.issuer,
      });
      expect(jwtClaims(fromScript.get('id_token')!)).toMatchObject({ sub: user._id, aud: client._id, nonce: params.nonce });
      const info = await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${fromScript.get('access_token')}` } });
      expect(info.status).toBe(200);
    },
    TIMEOUT,
  );
});

// A relying party that asks for step-up confirmations: a confidential client
// redirecting to an RP callback, opening challenges (POST /api/oauth/2fa/challenges)
// and verifying their codes (POST /api/oauth/2fa/verify), as an RP's server does.
import type { NewClientInput } from '../../lib/model/clients.js';
import { newRp } from '../../tools/fixtures/clients.js';
import type { RpCallback } from './browser.js';
import type { ApiUnderTest, Json } from './harness.js';

export interface StepUpRp {
  id: string;
  name: string;
  basic: string;
  /** Opens a challenge for `action`; answers its URL, where the browser goes. */
  challenge: (state: string) => Promise<string>;
  /** Redeems a challenge's code: the verification the RP reads. */
  verify: (code: string) => Promise<Json>;
}

export async function newStepUpRp(
  api: ApiUnderTest,
  callback: RpCallback,
  action: string,
  client: Partial<NewClientInput> & { name: string },
): Promise<StepUpRp> {
  const { id, basic } = await newRp(api.deps, {
    redirectUris: [{ type: 'equals', value: callback.redirectUri }],
    allowedScopes: ['openid'],
    ...client,
  });
  const issuer = api.deps.config.issuer;
  const challenge = async (state: string) => {
    const res = await fetch(`${issuer}/api/oauth/2fa/challenges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic },
      body: JSON.stringify({ redirect_uri: callback.redirectUri, action, state }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as Json).url as string;
  };
  const verify = async (code: string) => {
    const res = await fetch(`${issuer}/api/oauth/2fa/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: new URLSearchParams({ code, redirect_uri: callback.redirectUri }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  };
  return { id, name: client.name, basic, challenge, verify };
}

// The plans `npm run conformance` runs: by default every OpenID Connect OP
// certification plan Keyflow's features reach, each with static clients
// (made through the CLI) and, where the plan offers it, dynamic registration
// (the suite registers its own clients with an initial access token). The
// FAPI 2.0 plans, run against clients in Keyflow's FAPI 2.0 mode, run only
// when named (docs/conformance.md has their state).

/** Which suite configuration a plan runs with (suite-config.ts; fapi-config.ts for `fapi`). */
export type ConfigKind = 'static' | 'backchannel' | 'dynamic' | 'dynamic-backchannel' | 'fapi';

/**
 * The Keyflow a plan needs (run.ts's settings for each): `oidc` takes the
 * token endpoint's URL as a client assertion's audience, as the OIDC plans
 * send it; `fapi` the issuer alone, which FAPI 2.0 requires and its plans
 * check by sending the other endpoints' URLs.
 */
export type KeyflowProfile = 'oidc' | 'fapi';

export interface PlanRun {
  /** The plan with its variant, as the suite's runner takes it. */
  name: string;
  config: ConfigKind;
  keyflow: KeyflowProfile;
}

const both = (plan: string, variant: string, backchannel = false): PlanRun[] => [
  { name: `${plan}${variant}[client_registration=static_client]`, config: backchannel ? 'backchannel' : 'static', keyflow: 'oidc' },
  { name: `${plan}${variant}[client_registration=dynamic_client]`, config: backchannel ? 'dynamic-backchannel' : 'dynamic', keyflow: 'oidc' },
];

export const DEFAULT_PLANS: PlanRun[] = [
  ...both('oidcc-basic-certification-test-plan', '[server_metadata=discovery]'),
  { name: 'oidcc-config-certification-test-plan', config: 'static', keyflow: 'oidc' },
  { name: 'oidcc-dynamic-certification-test-plan[response_type=code]', config: 'dynamic', keyflow: 'oidc' },
  ...both('oidcc-formpost-basic-certification-test-plan', '[server_metadata=discovery]'),
  ...both('oidcc-rp-initiated-logout-certification-test-plan', '[response_type=code]'),
  ...both('oidcc-backchannel-rp-initiated-logout-certification-test-plan', '[response_type=code]', true),
];

/**
 * The FAPI 2.0 variants Keyflow could certify: private_key_jwt client
 * authentication, DPoP sender-constraining (Keyflow has no mTLS), the plain
 * FAPI profile, with and without OpenID Connect. The security profile plan
 * fixes fapi_request_method=unsigned and fapi_response_mode=plain_response
 * itself (the suite refuses them from the user); the message signing plan
 * runs with request objects (JAR, signed_non_repudiation), with plain and
 * JARM responses.
 */
const FAPI_BASE = '[client_auth_type=private_key_jwt][sender_constrain=dpop][fapi_profile=plain_fapi]';
const OPENID = ['openid_connect', 'plain_oauth'] as const;
const fapi = (name: string): PlanRun => ({ name, config: 'fapi', keyflow: 'fapi' });

export const FAPI_PLANS: PlanRun[] = [
  ...OPENID.map((openid) => fapi(`fapi2-security-profile-final-test-plan${FAPI_BASE}[openid=${openid}]`)),
  ...OPENID.flatMap((openid) =>
    ['plain_response', 'jarm'].map((mode) =>
      fapi(`fapi2-message-signing-final-test-plan${FAPI_BASE}[openid=${openid}][fapi_request_method=signed_non_repudiation][fapi_response_mode=${mode}]`),
    ),
  ),
];

const KNOWN_PLANS = [...DEFAULT_PLANS, ...FAPI_PLANS];

/** A plan named on the command line: a bare name runs all of its variants above; one with `[…]` runs as given. */
export function plansNamed(names: string[]): PlanRun[] {
  return names.flatMap((name) => {
    if (name.includes('[')) {
      const known = KNOWN_PLANS.find((p) => p.name === name);
      if (known) return [known];
      if (name.startsWith('fapi2-')) return [fapi(name)];
      const dynamic = name.includes('client_registration=dynamic_client') || name.startsWith('oidcc-dynamic-');
      const backchannel = name.includes('backchannel');
      return [{ name, config: dynamic ? (backchannel ? 'dynamic-backchannel' : 'dynamic') : backchannel ? 'backchannel' : 'static', keyflow: 'oidc' as const }];
    }
    const runs = KNOWN_PLANS.filter((p) => p.name === name || p.name.startsWith(`${name}[`));
    if (!runs.length)
      throw new Error(
        `unknown plan ${name}: name one of ${[...new Set(KNOWN_PLANS.map((p) => p.name.replace(/\[.*$/, '')))].join(', ')}, or give its variant in […]`,
      );
    return runs;
  });
}

/** The plan's name without its variant. */
export const planName = (run: PlanRun) => run.name.replace(/\[.*$/, '');

/** The variant a plan run names: `[openid=plain_oauth]…` as `{ openid: 'plain_oauth', … }`. */
export function variantOf(run: PlanRun): Record<string, string> {
  return Object.fromEntries([...run.name.matchAll(/\[([a-z_]+)=([^\]]*)\]/g)].map((m) => [m[1]!, m[2]!]));
}

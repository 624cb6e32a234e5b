// The plans `npm run conformance` runs by default: every OpenID Connect OP
// certification plan Keyflow's features reach, each with static clients
// (made through the CLI) and, where the plan offers it, dynamic registration
// (the suite registers its own clients with an initial access token).

/** Which suite configuration a plan runs with (suite-config.ts). */
export type ConfigKind = 'static' | 'backchannel' | 'dynamic' | 'dynamic-backchannel';

export interface PlanRun {
  /** The plan with its variant, as the suite's runner takes it. */
  name: string;
  config: ConfigKind;
}

const both = (plan: string, variant: string, backchannel = false): PlanRun[] => [
  { name: `${plan}${variant}[client_registration=static_client]`, config: backchannel ? 'backchannel' : 'static' },
  { name: `${plan}${variant}[client_registration=dynamic_client]`, config: backchannel ? 'dynamic-backchannel' : 'dynamic' },
];

export const DEFAULT_PLANS: PlanRun[] = [
  ...both('oidcc-basic-certification-test-plan', '[server_metadata=discovery]'),
  { name: 'oidcc-config-certification-test-plan', config: 'static' },
  { name: 'oidcc-dynamic-certification-test-plan[response_type=code]', config: 'dynamic' },
  ...both('oidcc-formpost-basic-certification-test-plan', '[server_metadata=discovery]'),
  ...both('oidcc-rp-initiated-logout-certification-test-plan', '[response_type=code]'),
  ...both('oidcc-backchannel-rp-initiated-logout-certification-test-plan', '[response_type=code]', true),
];

/** A plan named on the command line: a bare name runs all of its default variants; one with `[…]` runs as given. */
export function plansNamed(names: string[]): PlanRun[] {
  return names.flatMap((name) => {
    if (name.includes('[')) {
      const known = DEFAULT_PLANS.find((p) => p.name === name);
      if (known) return [known];
      const dynamic = name.includes('client_registration=dynamic_client') || name.startsWith('oidcc-dynamic-');
      const backchannel = name.includes('backchannel');
      return [{ name, config: dynamic ? (backchannel ? 'dynamic-backchannel' : 'dynamic') : backchannel ? 'backchannel' : 'static' }];
    }
    const runs = DEFAULT_PLANS.filter((p) => p.name === name || p.name.startsWith(`${name}[`));
    if (!runs.length)
      throw new Error(
        `unknown plan ${name}: name one of ${[...new Set(DEFAULT_PLANS.map((p) => p.name.replace(/\[.*$/, '')))].join(', ')}, or give its variant in […]`,
      );
    return runs;
  });
}

/** The plan's name without its variant. */
export const planName = (run: PlanRun) => run.name.replace(/\[.*$/, '');

// docs/configuration-reference.md, generated from the variables' declarations
// in env.ts (default, accepted values and description come from each schema),
// so the reference cannot drift from the code. Written by
// tools/scripts/config-reference.ts (`npm run docs:config`); a unit test
// regenerates it and compares it with the checked-in file.
import { z } from 'zod';
import { VARIABLE_GROUPS } from './env.js';

/** Where the generated file lives, relative to the project root. */
export const REFERENCE_FILE = 'docs/configuration-reference.md';

/** What a variable's schema tells about it, for the reference table. */
export interface VariableFacts {
  name: string;
  /** The value used when the variable is unset (as typed in the environment), or undefined: none. */
  defaultValue: string | undefined;
  /** The values accepted, when the schema can say it briefly (a number range, a list of choices). */
  values: string | undefined;
  description: string | undefined;
}

type Def = { type: string; in?: z.ZodType; innerType?: z.ZodType; defaultValue?: unknown };

/** Unwraps defaults, optionals and transforms down to the schema that checks the raw value. */
function facts(name: string, schema: z.ZodType): VariableFacts {
  let node: z.ZodType = schema;
  let defaultValue: string | undefined;
  for (;;) {
    const def = node.def as Def;
    if (def.type === 'default') defaultValue ??= String(def.defaultValue);
    const next = def.type === 'pipe' ? def.in : def.type === 'default' || def.type === 'optional' ? def.innerType : undefined;
    if (!next) break;
    node = next;
  }
  let values: string | undefined;
  if (node instanceof z.ZodNumber && node.minValue !== null && node.maxValue !== null) values = `${node.minValue}–${node.maxValue}`;
  if (node instanceof z.ZodEnum) values = node.options.map((o) => `\`${String(o)}\``).join(', ');
  return { name, defaultValue, values, description: schema.description };
}

/** Every variable, in the reference's groups. */
export function variableFacts(): { title: string; variables: VariableFacts[] }[] {
  return VARIABLE_GROUPS.map((g) => ({ title: g.title, variables: Object.entries(g.variables).map(([name, schema]) => facts(name, schema)) }));
}

const UNITS: Record<string, [number, string][]> = {
  SECONDS: [
    [86_400, 'days'],
    [3600, 'h'],
    [60, 'min'],
  ],
  MINUTES: [
    [1440, 'days'],
    [60, 'h'],
  ],
  MS: [
    [60_000, 'min'],
    [1000, 's'],
  ],
};

/** `2592000` → `` `2592000` (30 days) `` for a variable named …_SECONDS: the default in the unit people think in. */
function shownDefault(name: string, value: string | undefined): string {
  if (value === undefined) return '*(unset)*';
  if (value === '') return '*(empty)*';
  const unit = /_(SECONDS|MINUTES|MS)$/.exec(name)?.[1];
  const n = Number(value);
  const larger = unit ? UNITS[unit]!.find(([size]) => n >= size && n % size === 0) : undefined;
  if (!larger) return `\`${value}\``;
  const count = n / larger[0];
  return `\`${value}\` (${count} ${larger[1] === 'days' && count === 1 ? 'day' : larger[1]})`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The whole file, as `npm run docs:config` writes it. */
export function renderConfigurationReference(): string {
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated from lib/config/env.ts by `npm run docs:config`: edit the descriptions there, not here. -->',
    '',
    'Every environment variable Keyflow reads, with its default, the values it',
    'accepts and what it does. Each process checks them at start; a bad value',
    'stops it with one line per problem and exit code 1. Empty counts as unset.',
    'How to choose them, and what the longer trade-offs are:',
    '[Configuration](configuration.md).',
  ];
  for (const group of variableFacts()) {
    lines.push('', `## ${group.title}`, '', '| Variable | Default | Values | Description |', '|---|---|---|---|');
    for (const v of group.variables) {
      if (!v.description) throw new Error(`${v.name} has no description: add .describe('…') to its schema in lib/config/env.ts`);
      lines.push(`| \`${v.name}\` | ${cell(shownDefault(v.name, v.defaultValue))} | ${cell(v.values ?? '')} | ${cell(v.description)} |`);
    }
  }
  return lines.join('\n') + '\n';
}

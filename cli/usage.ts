// Usage text and usage errors of the operator CLI (exit code 2), and the
// strict reading of a command's own arguments. Light on purpose: `keyflow
// --help` loads this module and nothing heavier.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { cliIo } from './io.js';
import { COMMANDS, synopsis } from './commands.js';

/**
 * A command line the CLI refuses (exit 2): said in one line, with a pointer
 * to the command's help (run.ts adds it), never the whole usage text.
 */
export class UsageError extends Error {}

/** node:util's refusal of a command line, in the CLI's words: `unknown option --x`, `--email needs a value`. */
function parseArgsRefusal(err: Error & { code?: string }): UsageError {
  const named = /'(-{1,2}[^' ]+)/.exec(err.message)?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && named) return new UsageError(`unknown option ${named}`);
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && named)
    return new UsageError(err.message.includes('does not take') ? `${named} takes no value` : `${named} needs a value`);
  const positional = /^Unexpected argument '([^']*)'/.exec(err.message)?.[1];
  if (positional !== undefined) return new UsageError(`unexpected argument: ${positional}`);
  return new UsageError(err.message.split('\n')[0]);
}

/** node:util's parseArgs, whose refusal of a command line is a UsageError (one line, exit 2). */
export function parseOrUsage<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw parseArgsRefusal(err as Error);
  }
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Strict options and at most `positionals` positional arguments. */
export function parseCommand(argv: string[], options: Options, positionals = 0) {
  const parsed = parseOrUsage({ args: argv, options, allowPositionals: positionals > 0, strict: true });
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument: ${parsed.positionals[positionals]}`);
  return parsed;
}

/** A flag or argument the command cannot do without. */
export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new UsageError(`${flag} is required`);
  return value;
}

/** Wraps a synopsis at word boundaries for an 120-column terminal, later lines indented. */
function wrapped(line: string, indent: string): string {
  const words = line.split(' ');
  const lines: string[] = [];
  let current = '';
  for (const word of words) {
    if (current && (indent + current + ' ' + word).length > 120) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  lines.push(current);
  return lines.map((l, n) => (n === 0 ? `  ${l}` : `${indent}${l}`)).join('\n');
}

/** The usage text: every command's synopsis (cli/commands.ts), then what every command shares. */
export const USAGE = [
  'usage: keyflow <command> [options]        (npm run -s cli -- <command> ...; `keyflow <command> --help` for one command)',
  '',
  ...COMMANDS.map((c) => wrapped(synopsis(c), '        ')),
  '',
  '`clients` is also `apps`. USER: id, email or username; TEAM: id or slug; SOURCE: id or slug.',
  'Output is JSON on stdout (webhooks tail: text lines); errors are one line on stderr. Exit codes: 0 done;',
  '1 not found or failed (no such user, app, team, source, invitation, webhook or key; a conflict; MongoDB or',
  'Temporal unreachable); 2 a wrong command line (unknown command or option, missing or extra argument, invalid value).',
].join('\n');

/** A command's result: JSON on stdout. */
export const print = (value: unknown): void => cliIo().stdout(JSON.stringify(value, null, 2) + '\n');

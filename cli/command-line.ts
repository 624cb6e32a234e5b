// A command line checked against its command's definition (commands.ts)
// before anything is opened: the command exists, its options are known and
// have their values, its arguments are neither missing nor too many, and its
// required options are there. A wrong command line is then a usage error
// even when MongoDB or Temporal is down. What one command alone can judge
// (a value's form, options that exclude each other) its module still checks.
// Also the pointer to the help that every usage error ends with.
import { commandOf, groupCommands, isSingleCommand, optionsOf, type CommandDef } from './commands.js';
import { parseOrUsage, UsageError } from './usage.js';

/** The command `argv` names (group, then sub unless it is of one word), or undefined. */
export function lineCommand(argv: string[]): CommandDef | undefined {
  const [group, sub] = argv;
  return group === undefined ? undefined : commandOf(group, isSingleCommand(group) ? undefined : sub);
}

/** The command `argv` names; a UsageError when there is none. */
export function commandOfLine(argv: string[]): CommandDef {
  const [group, sub] = argv;
  const def = lineCommand(argv);
  if (def) return def;
  if (group === undefined || groupCommands(group).length === 0) throw new UsageError(`unknown command: ${group ?? ''}`.trim());
  throw new UsageError(sub === undefined ? `${group} needs a command` : `unknown command: ${group} ${sub}`);
}

/** Refuses a command line its definition does not allow (a UsageError naming the option or argument). */
export function checkCommandLine(def: CommandDef, rest: string[]): void {
  const negatable = Object.values(def.options ?? {}).some((o) => o.negatable);
  const parsed = def.literalArgs
    ? { values: {}, positionals: rest.slice(rest[0] === '--' ? 1 : 0) }
    : parseOrUsage({ args: rest, options: optionsOf(def.name), allowPositionals: true, allowNegative: negatable, strict: true });
  const declared = def.args ?? [];
  if (parsed.positionals.length > declared.length) throw new UsageError(`unexpected argument: ${parsed.positionals[declared.length]}`);
  // `[KEY]`: optional.
  const missing = declared.find((name, i) => !name.startsWith('[') && parsed.positionals[i] === undefined);
  if (missing !== undefined) throw new UsageError(`${missing} is required`);
  const absent = Object.entries(def.options ?? {}).find(([key, o]) => o.required && !Object.hasOwn(parsed.values, key));
  if (absent) throw new UsageError(`--${absent[0]} is required`);
}

/** Where a refused command line is pointed: the command's help, else its group's, else the CLI's. */
export function helpHint(argv: string[]): string {
  const [group, sub] = argv;
  const def = lineCommand(argv);
  if (def) return `keyflow ${def.name.includes(' ') ? `${group} ${sub}` : group} --help`;
  return group !== undefined && groupCommands(group).length ? `keyflow ${group} --help` : 'keyflow --help';
}

// The option a model field's value came from, so that a refusal of the model
// (`redirectUris.0: must be …`, `token_endpoint_auth_method: …`) names what
// the operator typed (`--redirect-uri: must be …`). Derived from the
// command's options (commands.ts): a field is its option in camelCase or
// snake_case, singular or plural; the table below names the fields whose
// option is called otherwise. A field no option matches keeps its name.
import type { CommandDef } from './commands.js';

/** Fields (in kebab-case) whose option has another name. */
const IRREGULAR: Record<string, string> = {
  'token-endpoint-auth-method': 'auth-method',
  'allowed-scopes': 'scope',
  scopes: 'scope',
  'id-token-signed-response-alg': 'id-token-alg',
  'userinfo-signed-response-alg': 'userinfo-alg',
  'introspection-signed-response-alg': 'introspection-alg',
  'request-object-signing-alg': 'request-object-alg',
  'access-token-signed-response-alg': 'access-token-alg',
  'is-verified': 'verified',
  'require-pkce': 'no-pkce',
  'require-pushed-authorization-requests': 'require-par',
  'member-groups-enabled': 'member-groups',
  'parent-id': 'parent',
  'claim-mapping': 'claim',
};

/** `redirectUris` and `redirect_uris` alike: `redirect-uris`. */
const kebab = (field: string) =>
  field
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();

/** The option (`--redirect-uri`) a field's value came from, or undefined when the command has none for it. */
export function flagOfField(def: CommandDef, field: string): string | undefined {
  const options = Object.keys(def.options ?? {});
  const name = kebab(field);
  const option = options.find((o) => o === (IRREGULAR[name] ?? name) || `${o}s` === name);
  return option && `--${option}`;
}

/** A model's problem (`field.0: message`) with the field's option in place of its path, when the command has one. */
export function problemInFlags(def: CommandDef | undefined, problem: string): string {
  const named = /^([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)*): /.exec(problem);
  const flag = named && def ? flagOfField(def, named[1]!) : undefined;
  return flag ? `${flag}: ${problem.slice(named![0].length)}` : problem;
}

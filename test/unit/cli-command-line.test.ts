// A command line is checked against its definition (cli/commands.ts) before
// anything is opened, and a model's refusal names the option a value came from.
import { checkCommandLine, commandOfLine, helpHint } from '../../cli/command-line.js';
import { commandDef } from '../../cli/commands.js';
import { problemInFlags } from '../../cli/field-flags.js';

const refusal = (argv: string[]) => {
  try {
    const def = commandOfLine(argv);
    checkCommandLine(def, argv.slice(def.name.split(' ').length));
    return null;
  } catch (err) {
    return `${(err as Error).message} (see ${helpHint(argv)})`;
  }
};

describe('the command line, before anything is opened', () => {
  it.each([
    [['restore'], '--from is required (see keyflow restore --help)'],
    [['users', 'create', '--email'], '--email needs a value (see keyflow users create --help)'],
    [['users', 'create', '--email', 'a@example.com', '--admin=yes'], '--admin takes no value (see keyflow users create --help)'],
    [['apps', 'verify', 'x', '--bogus'], 'unknown option --bogus (see keyflow apps verify --help)'],
    [['clients', 'verify'], 'CLIENT_ID is required (see keyflow clients verify --help)'],
    [['config', 'set', 'k'], 'VALUE is required (see keyflow config set --help)'],
    [['config', 'get', 'a', 'b'], 'unexpected argument: b (see keyflow config get --help)'],
    [['keys', 'retire', '-a', '-b'], 'unexpected argument: -b (see keyflow keys retire --help)'],
    [['teams'], 'teams needs a command (see keyflow teams --help)'],
    [['teams', 'rename'], 'unknown command: teams rename (see keyflow teams --help)'],
    [['nope', 'list'], 'unknown command: nope (see keyflow --help)'],
  ])('refuses %j: %s', (argv, message) => {
    expect(refusal(argv)).toBe(message);
  });

  it.each([[['config', 'get']], [['keys', 'retire', '-Xk2v']], [['keys', 'retire', '--', '-Xk2v']], [['sources', 'update', 's', '--no-allow-sign-up']]])(
    'takes %j',
    (argv) => {
      expect(refusal(argv)).toBeNull();
    },
  );
});

describe("a model's refusal, in the CLI's options", () => {
  it.each([
    ['clients create', 'redirectUris.0: must use https', '--redirect-uri: must use https'],
    ['clients update', 'redirect_uris.1.value: must use https', '--redirect-uri: must use https'],
    ['clients create', 'tokenEndpointAuthMethod: invalid option', '--auth-method: invalid option'],
    ['clients create', 'allowedScopes.0: unknown scope "x"', '--scope: unknown scope "x"'],
    ['users update', 'phone_number_verified: the user has no phone number', '--phone-number-verified: the user has no phone number'],
    ['teams add-member', 'groups: no such group in this team: x', '--group: no such group in this team: x'],
    ['teams create', 'parent_id: x', '--parent: x'],
    ['clients create', 'ownerUserId: x', 'ownerUserId: x'],
    ['clients create', 'private_key_jwt needs jwks or jwks_uri', 'private_key_jwt needs jwks or jwks_uri'],
    ['config set', 'registration: must be one of open, invite, closed', 'registration: must be one of open, invite, closed'],
  ])('%s: %s', (name, problem, said) => {
    expect(problemInFlags(commandDef(name), problem)).toBe(said);
  });
});

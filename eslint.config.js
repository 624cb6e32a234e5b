// ESLint (flat config): typescript-eslint's type-checked rules, and the layer
// rules of Keyflow's architecture (docs/architecture.md, "Layers"): which folder may
// import which. A violation fails `npm test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** A `no-restricted-imports` pattern refusing import paths that match `regex`, with the reason shown in the error. */
const refuse = (regex, message, allowTypeImports = false) => ({ regex, message, allowTypeImports });

// The layers, from the top: a file may import the layers below it, never one above.
const API = refuse('(^|/)api/', 'nothing outside api/ imports from api/: the HTTP layer sits on top');
const CLI = refuse('(^|/)cli/', 'nothing imports the CLI: it sits on top, beside the api');
const TOOLS = refuse('(^|/)tools/', 'product code does not depend on tooling (tools/ is bench, scripts and embedded dev servers)');
const WORKFLOWS = refuse('(^|/)workflows/', 'only the worker loads workflow code; share types through lib/model', true);
const ACTIVITIES = refuse('(^|/)activities/', 'only the worker loads activities; workflows may `import type` them', true);
const FLOWS = refuse('(^|/)lib/flows/|^\\.\\./flows/', 'flow clients are called by the api, the CLI and the worker, not by this layer');
const MONGODB = refuse('^mongodb$', 'MongoDB is reached through lib/store only', true);
const TEMPORAL_CLIENT = refuse('^@temporalio/client$', 'Temporal is driven through the per-flow modules of lib/flows only', true);
const TEMPORAL_WORKER = refuse('^@temporalio/(worker|activity)$', 'the worker SDK belongs to worker/ and activities/');
const EXPRESS = refuse('^express$', 'express belongs to api/');

/** What no api module imports: tools, the worker's code, MongoDB and Temporal directly. */
const API_BASE = [CLI, TOOLS, WORKFLOWS, ACTIVITIES, MONGODB, TEMPORAL_CLIENT, TEMPORAL_WORKER];
/** Imports of the api/ folders `folders` (e.g. 'pages|resources') from inside api/: a relative path that climbs, then the folder. */
const inApi = (folders, message) => refuse(`^(\\.\\./)+(${folders})/`, message);

const restrict = (files, patterns) => ({
  files,
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.tools/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
      eqeqeq: ['error', 'always'],
      // URLSearchParams stringify to their query string: a well-defined template value.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allow: [
            { from: 'lib', name: ['Error', 'URL', 'URLSearchParams'] },
            { from: 'package', package: 'url', name: ['URL', 'URLSearchParams'] },
          ],
        },
      ],
    },
  },
  // Plain JavaScript (browser assets, bootstrap scripts, configs): no type information.
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['api/assets/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', fetch: 'readonly', navigator: 'readonly', setTimeout: 'readonly' } },
  },
  // Tests read parsed JSON answers as `Json` (any) on purpose: their assertions check the shape.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Stub activities implement async interfaces without awaiting anything.
      '@typescript-eslint/require-await': 'off',
    },
  },

  // Layer rules.
  // Workflow code is replayed deterministically inside Temporal's sandbox: it
  // imports the workflow SDK, pure model modules, search attribute keys, and
  // types (e.g. its activities' interface) — nothing that does I/O.
  restrict(
    ['workflows/**/*.ts'],
    [
      refuse(
        '^(?!@temporalio/(workflow|common)$|\\./|\\.\\./lib/model/|\\.\\./lib/temporal/(search-attributes|flow-messages)\\.js$)',
        'workflow code imports only @temporalio/workflow, pure lib/model modules, search attribute keys and flow messages (types from anywhere)',
        true,
      ),
    ],
  ),
  restrict(['activities/**/*.ts'], [API, CLI, TOOLS, WORKFLOWS, FLOWS, EXPRESS, MONGODB, TEMPORAL_CLIENT]),
  restrict(['worker/**/*.ts'], [API, CLI, TOOLS, EXPRESS, MONGODB]),
  // api/: the HTTP layer, in layers of its own (api/paths.ts and api/context.ts are for all of them).
  // From the bottom: html (markup), http (middleware, sessions, request parsing),
  // sign-in-checks (a person's checks in a request), views (rendering); then
  // protocol/shared (what every protocol endpoint shares), the protocol
  // endpoints, the REST resources, the pages. A folder's specifier is matched
  // after its `../`s, so lib's folders of the same name are not.
  restrict(['api/**/*.ts'], API_BASE),
  // cli/: the operator CLI, a top layer beside api/: it calls lib/ (the same changes the API makes).
  restrict(['cli/**/*.ts'], [API, TOOLS, WORKFLOWS, ACTIVITIES, EXPRESS, MONGODB, TEMPORAL_WORKER]),
  restrict(
    ['api/html/**/*.ts'],
    [...API_BASE, inApi('http|sign-in-checks|views|protocol|resources|pages', 'api/html is markup only: it renders nothing of the layers above')],
  ),
  restrict(
    ['api/http/**/*.ts'],
    [
      ...API_BASE,
      inApi('sign-in-checks|views|protocol|resources|pages', 'api/http (middleware, sessions, request parsing) sits below every endpoint, resource and page'),
    ],
  ),
  restrict(
    ['api/sign-in-checks/**/*.ts'],
    [...API_BASE, inApi('views|protocol|resources|pages', "api/sign-in-checks reads a person's checks from a request; the endpoints and pages call it")],
  ),
  restrict(
    ['api/views/**/*.ts'],
    [...API_BASE, inApi('protocol|resources|pages', 'views render what a page hands them; they call no endpoint, resource or page')],
  ),
  restrict(
    ['api/protocol/**/*.ts'],
    [
      ...API_BASE,
      inApi('resources|pages', 'protocol endpoints do not import REST resources or pages (the pages return to the authorization flow, not the other way)'),
    ],
  ),
  restrict(
    ['api/protocol/shared/**/*.ts'],
    [
      ...API_BASE,
      inApi('views|resources|pages', 'protocol/shared is what every protocol endpoint shares: below the endpoints, resources and pages'),
      refuse('^\\.\\./(?!\\.\\.|shared/)', 'protocol/shared imports no protocol endpoint: the endpoints import it'),
    ],
  ),
  restrict(
    ['api/resources/**/*.ts'],
    [
      ...API_BASE,
      inApi('sign-in-checks|pages', 'REST resources answer JSON to tokens: no browser pages, no sign-in checks'),
      refuse('^(\\.\\./)+protocol/(?!shared/)', 'REST resources use protocol/shared (Bearer tokens, step-up signalling), never a protocol endpoint'),
    ],
  ),
  restrict(['api/pages/**/*.ts'], [...API_BASE, inApi('resources', 'pages call lib/ (the same changes the REST resources make), not the REST resources')]),
  // lib/: the pure model at the bottom, the store above it, everything else above both.
  // lib/model and lib/store by allow lists (as workflows/): a new folder or
  // package is refused until it is named here, so the lists cannot go stale.
  restrict(
    ['lib/model/**/*.ts'],
    [
      refuse(
        '^(?!\\./|\\.\\./security/|\\.\\./runtime/clock\\.js$|zod$|re2js$|node:crypto$)',
        'lib/model is pure: it imports other model modules, lib/security helpers, the clock, zod, re2js and node:crypto only',
      ),
    ],
  ),
  restrict(
    ['lib/store/**/*.ts'],
    [
      refuse(
        '^(?!\\./|\\.\\./(model|security)/|\\.\\./runtime/(metrics|clock)\\.js$|\\.\\./config/env\\.js$|mongodb$|node:crypto$|p-limit$)',
        'lib/store reads and writes documents: it imports lib/model, lib/security, the metrics, clock and configuration modules, mongodb, node:crypto and p-limit only',
      ),
    ],
  ),
  restrict(['lib/flows/**/*.ts'], [API, CLI, TOOLS, WORKFLOWS, ACTIVITIES, EXPRESS, MONGODB, TEMPORAL_WORKER]),
  restrict(['lib/temporal/**/*.ts'], [API, CLI, TOOLS, WORKFLOWS, ACTIVITIES, FLOWS, EXPRESS, MONGODB, TEMPORAL_CLIENT, TEMPORAL_WORKER]),
  restrict(['lib/!(model|store|flows|temporal)/**/*.ts'], [API, CLI, TOOLS, WORKFLOWS, ACTIVITIES, EXPRESS, MONGODB, TEMPORAL_CLIENT, TEMPORAL_WORKER]),
  // The connection module makes the one Temporal client every flow module uses.
  restrict(['lib/temporal/connection.ts'], [API, CLI, TOOLS, WORKFLOWS, ACTIVITIES, FLOWS, EXPRESS, MONGODB, TEMPORAL_WORKER]),
  restrict(['tools/**/*.ts'], [WORKFLOWS, ACTIVITIES, refuse('(^|/)test/', 'tooling does not import tests: shared fixtures live in tools/fixtures')]),
  // Time that tests control: product code reads the current time through lib/runtime/clock.ts
  // (currentTimeMs, currentDate; realTimeMs for deadlines of calls to other servers), never
  // Date.now() or new Date() itself. Workflow code reads Temporal's deterministic Date.now().
  {
    files: ['lib/**/*.ts', 'api/**/*.ts', 'cli/**/*.ts', 'activities/**/*.ts', 'worker/**/*.ts'],
    ignores: ['lib/runtime/clock.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'read the time through lib/runtime/clock.ts (currentTimeMs), so that tests can move it',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'read the time through lib/runtime/clock.ts (currentDate), so that tests can move it',
        },
      ],
    },
  },
  // Only tests skip time, and only through test/support/clock.ts (which puts the clock back after each test).
  {
    files: ['**/*.ts'],
    ignores: ['test/support/clock.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)runtime/clock\\.js$',
              importNames: ['advanceClock', 'resetClock'],
              message: 'the clock is moved by tests only, through test/support/clock.ts',
            },
          ],
        },
      ],
    },
  },
);

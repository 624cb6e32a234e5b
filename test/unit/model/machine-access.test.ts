// Machine access (client_credentials): which scopes a client may hold at
// which resource, what a request gets, and the CLI's RESOURCE=SCOPES form.
import { machineRequest, machineScopeProblem, parseMachineAccessArgs } from '../../../lib/model/machine-access.js';
import { validClient } from '../../../lib/model/clients.js';

const A = 'https://a.example/';
const B = 'https://b.example/';
const access = [
  { resource: A, scopes: ['a:read', 'a:write'] },
  { resource: B, scopes: ['b:read'] },
];

describe('machine scopes', () => {
  it.each([
    ['openid', /scope of Keyflow's users/],
    ['profile:write', /scope of Keyflow's users/],
    ['team:read', /scope of Keyflow's users/],
    ['app:some-client:*', /scope of Keyflow's users/],
    ['has space', /not a scope/],
    ['quote"d', /not a scope/],
    ['', /not a scope/],
  ])('refuses %s', (scope, message) => {
    expect(machineScopeProblem(scope)).toMatch(message);
  });

  it('takes a resource server scope', () => {
    expect(machineScopeProblem('orders:read')).toBeNull();
  });
});

describe('machineRequest', () => {
  it('gives the one resource and all its scopes when nothing is named', () => {
    expect(machineRequest([access[0]!], undefined, undefined)).toEqual({ ok: true, resources: [A], scope: ['a:read', 'a:write'] });
  });

  it('asks a client with several resources to name one', () => {
    expect(machineRequest(access, undefined, undefined)).toMatchObject({ ok: false, error: 'invalid_target' });
  });

  it('narrows to the scopes asked for, each allowed at the resources named', () => {
    expect(machineRequest(access, [A, B], 'a:read b:read')).toEqual({ ok: true, resources: [A, B], scope: ['a:read', 'b:read'] });
    expect(machineRequest(access, A, 'b:read')).toMatchObject({ ok: false, error: 'invalid_scope' });
    expect(machineRequest(access, A, '')).toMatchObject({ ok: false, error: 'invalid_scope' });
    expect(machineRequest(access, 'https://c.example/', undefined)).toMatchObject({ ok: false, error: 'invalid_target' });
    expect(machineRequest(access, 'not a uri', undefined)).toMatchObject({ ok: false, error: 'invalid_target' });
  });
});

describe('the client model', () => {
  const machine = { name: 'M', redirectUris: [], machineAccess: access };

  it('needs no redirect URI for a client with machine access, and one otherwise', () => {
    expect(validClient(machine).machineAccess).toEqual(access);
    expect(() => validClient({ name: 'N', redirectUris: [] })).toThrow(/redirectUris: at least one redirect URI is required/);
  });

  it('refuses machine access for a public client, a resource twice, a user scope', () => {
    expect(() => validClient({ ...machine, public: true })).toThrow(/public client cannot act for itself/);
    expect(() => validClient({ ...machine, machineAccess: [access[0]!, access[0]!] })).toThrow(/names a resource twice/);
    expect(() => validClient({ ...machine, machineAccess: [{ resource: A, scopes: ['email'] }] })).toThrow(/scope of Keyflow's users/);
    expect(() => validClient({ ...machine, machineAccess: [{ resource: A, scopes: [] }] })).toThrow(/names no scope/);
  });
});

describe('parseMachineAccessArgs', () => {
  it('reads RESOURCE=SCOPE,SCOPE, merging a resource named twice', () => {
    expect(parseMachineAccessArgs([`${A}=a:read,a:write`, `${B}=b:read`, `${A}=a:admin`])).toEqual({
      ok: true,
      access: [
        { resource: A, scopes: ['a:read', 'a:write', 'a:admin'] },
        { resource: B, scopes: ['b:read'] },
      ],
    });
  });

  it.each([['https://a.example/'], ['=a:read'], [`${A}=`]])('refuses %s', (value) => {
    expect(parseMachineAccessArgs([value])).toMatchObject({ ok: false, description: expect.stringMatching(/RESOURCE=SCOPE/) });
  });
});

// What a client's stored document becomes when it is made, replaced (edited,
// re-registered) or given a new secret: who gets a secret, that it is shown
// once and stored as its hash, and what an edit keeps. (Basics also in
// domain-records.test.ts.)
import { newClient, replacedClient, withNewClientSecret } from '../../../lib/model/client-secrets.js';
import { usesClientSecret, type NewClientInput } from '../../../lib/model/clients.js';
import { ValidationError } from '../../../lib/model/errors.js';
import { hashSecret } from '../../../lib/security/secrets.js';

const app: NewClientInput = { name: 'App', redirectUris: [{ type: 'equals', value: 'https://rp.example/cb' }] };
const JWKS = { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] };
const T0 = new Date('2025-01-01T00:00:00Z');
const T1 = new Date('2025-02-01T00:00:00Z');

describe('usesClientSecret', () => {
  it('is true for the shared-secret methods only', () => {
    expect(['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'].map((m) => usesClientSecret(m as never))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

describe('newClient', () => {
  it('makes a 256-bit secret, stored as its SHA-256 hash, for a client that authenticates with one', () => {
    const { client, clientSecret } = newClient({ ...app, tokenEndpointAuthMethod: 'client_secret_post' }, {}, T0);
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client.secretHash).toBe(hashSecret(clientSecret!));
    expect(JSON.stringify(client)).not.toContain(clientSecret);
    expect(client).toMatchObject({ createdAt: T0, updatedAt: T0, tokenEndpointAuthMethod: 'client_secret_post' });
  });

  it('makes no secret for a private_key_jwt client', () => {
    const { client, clientSecret } = newClient({ ...app, tokenEndpointAuthMethod: 'private_key_jwt', jwks: JWKS });
    expect(clientSecret).toBeNull();
    expect(client.secretHash).toBeNull();
  });

  it('gives every client its own id and secret, and keeps the registration extras', () => {
    const a = newClient(app, { registrationTokenHash: 'rt', grantTypes: ['authorization_code'], logoUri: 'https://cdn.rp.example/l.png' });
    const b = newClient(app);
    expect(a.client._id).not.toBe(b.client._id);
    expect(a.clientSecret).not.toBe(b.clientSecret);
    expect(a.client).toMatchObject({ registrationTokenHash: 'rt', grantTypes: ['authorization_code'], logoUri: 'https://cdn.rp.example/l.png' });
  });

  it('refuses settings the model refuses, naming each problem', () => {
    expect(() => newClient({ ...app, name: '', redirectUris: [] })).toThrow(
      expect.objectContaining({ problems: ['name: is required', 'redirectUris: at least one redirect URI is required'] }) as ValidationError,
    );
  });
});

describe('replacedClient', () => {
  const { client: current } = newClient(
    app,
    { registrationTokenHash: 'rt', grantTypes: ['authorization_code'], responseTypes: ['code'], tosUri: 'https://rp.example/tos' },
    T0,
  );

  it('keeps the id, creation time, secret and registration metadata, and stamps the change', () => {
    const { client, clientSecret } = replacedClient(current, { ...app, name: 'Renamed' }, {}, T1);
    expect(clientSecret).toBeNull();
    expect(client).toMatchObject({
      _id: current._id,
      name: 'Renamed',
      secretHash: current.secretHash,
      registrationTokenHash: 'rt',
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      tosUri: 'https://rp.example/tos',
      createdAt: T0,
      updatedAt: T1,
    });
  });

  it('never reactivates a deactivated client', () => {
    const { client } = replacedClient({ ...current, deactivatedAt: T1 }, app);
    expect(client.deactivatedAt).toEqual(T1);
    expect(replacedClient(current, app).client.deactivatedAt).toBeNull();
  });

  it('takes new registration metadata when given, over the stored one', () => {
    expect(replacedClient(current, app, { tosUri: null, grantTypes: ['implicit'] }).client).toMatchObject({ tosUri: null, grantTypes: ['implicit'] });
  });

  it('drops the secret of a client that moves to private_key_jwt, and refuses what the model refuses', () => {
    expect(replacedClient(current, { ...app, tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: 'https://rp.example/jwks' })).toMatchObject({
      clientSecret: null,
      client: { secretHash: null },
    });
    expect(() => replacedClient(current, { ...app, tokenEndpointAuthMethod: 'private_key_jwt' })).toThrow(ValidationError);
  });
});

describe('withNewClientSecret', () => {
  it('replaces the secret and stamps the change', () => {
    const { client, clientSecret } = newClient(app, {}, T0);
    const rotated = withNewClientSecret(client, T1)!;
    expect(rotated.clientSecret).not.toBe(clientSecret);
    expect(rotated.client).toEqual({ ...client, secretHash: hashSecret(rotated.clientSecret!), updatedAt: T1 });
  });

  it('gives none to a client that uses none', () => {
    expect(withNewClientSecret(newClient({ ...app, tokenEndpointAuthMethod: 'private_key_jwt', jwks: JWKS }).client)).toBeNull();
    expect(withNewClientSecret(newClient({ ...app, public: true }).client)).toBeNull();
  });
});

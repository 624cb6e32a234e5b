// What a client's stored document becomes when it is created, replaced or
// given a new secret. A client that authenticates with a shared secret
// (usesClientSecret) has one: 256 random bits, shown once when made and
// stored only as its SHA-256 hash.
import { hashSecret, newId, newSecret } from '../security/secrets.js';
import { usesClientSecret, validClient, type ClientDoc, type ClientExtras, type NewClientInput } from './clients.js';
import { currentDate } from '../runtime/clock.js';

/** A client document and the secret made with it (null when none was made). */
export interface ClientWithSecret {
  client: ClientDoc;
  clientSecret: string | null;
}

/** A new client from settings the model validates (a ValidationError otherwise). */
export function newClient(input: NewClientInput, extras: Partial<ClientExtras> = {}, now = currentDate()): ClientWithSecret {
  const valid = validClient(input);
  const clientSecret = usesClientSecret(valid.tokenEndpointAuthMethod) ? newSecret() : null;
  const client: ClientDoc = {
    ...valid,
    ...extras,
    _id: newId(),
    secretHash: clientSecret ? hashSecret(clientSecret) : null,
    createdAt: now,
    updatedAt: now,
  };
  return { client, clientSecret };
}

/**
 * `current` with new settings (the whole document is rewritten). The id,
 * creation time, registration metadata, machine access and active state stay; the secret stays while the
 * client keeps using one, is dropped when it stops, and is made when it starts.
 */
export function replacedClient(current: ClientDoc, input: NewClientInput, extras: Partial<ClientExtras> = {}, now = currentDate()): ClientWithSecret {
  // Machine access is an operator's alone (setClientMachineAccess): kept whatever the input, and checked with the new settings.
  // Grant types decide whether redirect URIs are needed: those it has unless the change names others (null, stored for none: none).
  const valid = validClient({
    ...input,
    machineAccess: current.machineAccess ?? [],
    grantTypes: input.grantTypes ?? extras.grantTypes ?? current.grantTypes ?? undefined,
  });
  const needsSecret = usesClientSecret(valid.tokenEndpointAuthMethod);
  const clientSecret = needsSecret && !current.secretHash ? newSecret() : null;
  const client: ClientDoc = {
    ...valid,
    registrationTokenHash: current.registrationTokenHash ?? null,
    grantTypes: valid.grantTypes,
    responseTypes: current.responseTypes,
    clientUri: current.clientUri ?? null,
    logoUri: current.logoUri ?? null,
    policyUri: current.policyUri ?? null,
    tosUri: current.tosUri ?? null,
    // Editing an app never reactivates it: only a site admin does.
    deactivatedAt: current.deactivatedAt ?? null,
    ...extras,
    _id: current._id,
    secretHash: needsSecret ? (clientSecret ? hashSecret(clientSecret) : current.secretHash) : null,
    createdAt: current.createdAt,
    updatedAt: now,
  };
  return { client, clientSecret };
}

/** The client with a new secret in place of its old one; null for a client that uses none. */
export function withNewClientSecret(client: ClientDoc, now = currentDate()): ClientWithSecret | null {
  if (client.public || !usesClientSecret(client.tokenEndpointAuthMethod)) return null;
  const clientSecret = newSecret();
  return { client: { ...client, secretHash: hashSecret(clientSecret), updatedAt: now }, clientSecret };
}

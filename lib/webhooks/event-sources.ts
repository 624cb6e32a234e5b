// What the sources of user events put in an event: the app events' data (field
// names in the app API's terms, never a secret's value), the actor of a request.
import { appJson } from '../model/client-metadata.js';
import type { ClientDoc } from '../model/clients.js';
import type { EventActor } from '../model/webhook-events.js';

/** `app.created` and `app.deleted`: `{app_id, name}`. */
export const appEventData = (client: ClientDoc) => ({ app_id: client._id, name: client.name });

/** `app.updated`: `{app_id, name, changed}` (the name after the change). */
export const appUpdatedData = (client: ClientDoc, changed: string[]) => ({ app_id: client._id, name: client.name, changed });

/** Fields that are not the app's settings (identity, timestamps). */
const NOT_SETTINGS = new Set(['client_id', 'created_at', 'updated_at']);

/** Dynamic-registration metadata kept beside the app API's fields, in RFC 7591 names. */
const registrationFields = (c: ClientDoc) => ({
  grant_types: c.grantTypes ?? null,
  response_types: c.responseTypes ?? null,
  client_uri: c.clientUri ?? null,
  logo_uri: c.logoUri ?? null,
  policy_uri: c.policyUri ?? null,
  tos_uri: c.tosUri ?? null,
});

/**
 * The fields of an app that differ between two versions, in the app API's names
 * (`name`, `redirect_uris`, …); `client_secret` when the secret was issued,
 * rotated or dropped — its name only, never a value.
 */
export function appChanges(before: ClientDoc, after: ClientDoc): string[] {
  const a: Record<string, unknown> = { ...appJson(before), ...registrationFields(before) };
  const b: Record<string, unknown> = { ...appJson(after), ...registrationFields(after) };
  const changed = Object.keys(b).filter((k) => !NOT_SETTINGS.has(k) && JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null));
  if ((before.secretHash ?? null) !== (after.secretHash ?? null)) changed.push('client_secret');
  return changed;
}

/** The actor of a request made with an access token (OAuth or personal): the token's user and client. */
export const tokenActor = (req: { access?: { userId: string; clientId: string } }): EventActor => ({
  type: 'user',
  userId: req.access!.userId,
  clientId: req.access!.clientId,
});

/** The actor of a signed-in page's request. */
export const sessionActor = (userId: string): EventActor => ({ type: 'user', userId });

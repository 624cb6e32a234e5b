// Every change to OAuth sources, for the admin API and the operator CLI alike:
// the document built from NewSourceInput, the client secret sealed with the KEK
// (AAD `oauth-source:<id>`), the URL checks, and the admin event of each change
// (audit log + admin webhooks) with ids, slug and name, never the secret.
//
// Deleting a source unlinks every social account made through it: sign-in
// through the source stops at once, and a user who signed up through it keeps
// their Keyflow account (and any password or passkey), only not that link.
import { ConflictError, NotFoundError, parseOrRefuse, ValidationError } from '../model/errors.js';
import { DEFAULT_CLAIM_MAPPING, NewSourceInput, sourceSettings, type ClaimMapping, type OAuthSourceDoc } from '../model/oauth-sources.js';
import { isLoopbackHost } from '../model/redirect-uri.js';
import type { AdminEvent, EventActor } from '../model/webhook-events.js';
import { seal, type Kek } from '../security/kek.js';
import { newId } from '../security/secrets.js';
import type { Store } from '../store/db.js';
import { deleteSource, findSource, findSourceBySlug, insertSource, replaceSource } from '../store/oauth-sources.js';
import { deleteSocialAccountsOfSource } from '../store/source-links.js';
import { currentDate } from '../runtime/clock.js';

export interface SourceDeps {
  store: Store;
  kek: Kek;
  events: { admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void> };
}

const sourceData = (s: OAuthSourceDoc) => ({ source_id: s._id, slug: s.slug, name: s.name });
const sealSecret = (kek: Kek, id: string, secret: string) => seal(kek, Buffer.from(secret, 'utf8'), `oauth-source:${id}`);

/**
 * Upstream URLs carry the client secret and the user's tokens: https only,
 * plain http only for a loopback host (tests, development). An issuer is
 * compared verbatim with the ID token's `iss`, so it has no query or fragment.
 */
function urlProblems(input: NewSourceInput): string[] {
  const problems: string[] = [];
  const urls = {
    issuer: input.issuer,
    authorization_endpoint: input.authorization_endpoint,
    token_endpoint: input.token_endpoint,
    userinfo_endpoint: input.userinfo_endpoint,
  };
  for (const [field, value] of Object.entries(urls)) {
    if (value === null) continue;
    const url = new URL(value);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname.replace(/^\[|\]$/g, '')))
      problems.push(`${field}: must use https (http only for a loopback host)`);
    if (field === 'issuer' && (url.search !== '' || url.hash !== '')) problems.push('issuer: must have no query or fragment');
  }
  return problems;
}

/** The input read with NewSourceInput and the URL checks, or a ValidationError naming each problem. */
function checkedInput(body: unknown): NewSourceInput {
  const input = parseOrRefuse(NewSourceInput, body);
  const problems = urlProblems(input);
  if (problems.length) throw new ValidationError(problems);
  return input;
}

const claimMapping = (m: NewSourceInput['claim_mapping'], base: ClaimMapping = DEFAULT_CLAIM_MAPPING): ClaimMapping => ({
  subject: m.subject ?? base.subject,
  email: m.email ?? base.email,
  emailVerified: m.email_verified ?? base.emailVerified,
  name: m.name ?? base.name,
  username: m.username ?? base.username,
});

/** The settings of a document from checked input; identity, secret and timestamps are the caller's. */
function settingsDoc(input: NewSourceInput) {
  return {
    slug: input.slug,
    name: input.name,
    kind: input.kind,
    issuer: input.issuer,
    authorizationEndpoint: input.authorization_endpoint,
    tokenEndpoint: input.token_endpoint,
    userinfoEndpoint: input.userinfo_endpoint,
    clientId: input.client_id,
    scopes: input.scopes,
    allowSignUp: input.allow_sign_up,
    linkByVerifiedEmail: input.link_by_verified_email,
    claimMapping: claimMapping(input.claim_mapping),
    enabled: input.enabled,
  };
}

/** A source by id or slug (the CLI's reference), or null. */
export async function findSourceByRef(store: Store, ref: string): Promise<OAuthSourceDoc | null> {
  if (ref.length > 200) return null;
  return (await findSource(store, ref)) ?? (await findSourceBySlug(store, ref));
}

/** Adds a source from a NewSourceInput body; a taken slug is a ConflictError (store/oauth-sources.ts). */
export async function createSource(deps: SourceDeps, body: unknown, actor: EventActor): Promise<OAuthSourceDoc> {
  const input = checkedInput(body);
  const _id = newId();
  const now = currentDate();
  const source: OAuthSourceDoc = {
    _id,
    ...settingsDoc(input),
    clientSecret: input.client_secret === null ? null : sealSecret(deps.kek, _id, input.client_secret),
    createdAt: now,
    updatedAt: now,
  };
  await insertSource(deps.store, source);
  await deps.events.admin('oauth_source.create', sourceData(source), actor);
  return source;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Changes the fields a body names (any of NewSourceInput's); the result is
 * checked as a whole. `client_secret`: a string replaces the sealed secret,
 * null removes it, absent keeps it. `claim_mapping` names only the claims it
 * changes. The event names the changed fields (a secret by name only); a
 * change that changes nothing emits none.
 */
export async function updateSource(deps: SourceDeps, source: OAuthSourceDoc, body: unknown, actor: EventActor): Promise<OAuthSourceDoc> {
  if (!isObject(body)) throw new ValidationError(['the body must be a JSON object']);
  const before = sourceSettings(source);
  const { client_secret: secret, ...fields } = body;
  const mapping = isObject(fields.claim_mapping) ? { ...before.claim_mapping, ...fields.claim_mapping } : fields.claim_mapping;
  const merged = { ...before, ...fields, ...('claim_mapping' in fields ? { claim_mapping: mapping } : {}) };
  const input = checkedInput({ ...merged, client_secret: secret === undefined ? null : secret });
  const after: OAuthSourceDoc = { ...source, ...settingsDoc(input), updatedAt: currentDate() };
  if (secret !== undefined) after.clientSecret = input.client_secret === null ? null : sealSecret(deps.kek, source._id, input.client_secret);
  const now = sourceSettings(after);
  const changed: string[] = (Object.keys(now) as (keyof typeof now)[]).filter((k) => JSON.stringify(now[k]) !== JSON.stringify(before[k]));
  if (secret !== undefined && !(secret === null && source.clientSecret === null)) changed.push('client_secret');
  if (changed.length === 0) return source;
  // FerretDB v1 reports a unique-index clash on replace as a plain error, not a duplicate key: look first.
  if (after.slug !== source.slug && (await findSourceBySlug(deps.store, after.slug))) throw new ConflictError(`the slug ${after.slug} is taken`);
  if (!(await replaceSource(deps.store, after))) throw new NotFoundError('no such source');
  await deps.events.admin('oauth_source.update', { ...sourceData(after), changed }, actor);
  return after;
}

/** Deletes a source and unlinks its social accounts; a source already gone is a NotFoundError. */
export async function removeSource(deps: SourceDeps, source: OAuthSourceDoc, actor: EventActor): Promise<{ socialAccountsUnlinked: number }> {
  if (!(await deleteSource(deps.store, source._id))) throw new NotFoundError('no such source');
  const socialAccountsUnlinked = await deleteSocialAccountsOfSource(deps.store, source._id);
  await deps.events.admin('oauth_source.delete', { ...sourceData(source), social_accounts_unlinked: socialAccountsUnlinked }, actor);
  return { socialAccountsUnlinked };
}

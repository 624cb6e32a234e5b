// WebAuthn ceremonies (passkeys) with @simplewebauthn/server. The relying
// party is Keyflow's issuer: RP ID its host name, origin its origin. The
// expected challenge lives in the browser session and answers one ceremony.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { PasskeyDoc } from '../../lib/model/passkeys.js';
import type { SessionDoc } from '../../lib/model/sessions.js';
import type { UserDoc } from '../../lib/model/users.js';
import type { Store } from '../../lib/store/db.js';
import { findPasskey, insertPasskey, listPasskeys, recordPasskeyUse } from '../../lib/store/passkeys.js';
import { takeWebauthnChallenge, updateSession } from '../../lib/store/sessions.js';
import { z } from 'zod';
import { currentDate } from '../../lib/runtime/clock.js';

/** Names a credential; @simplewebauthn/server checks the rest of a browser's answer (and refuses what does not fit). */
const namesCredential = (v: unknown): boolean => typeof v === 'object' && v !== null && 'id' in v && typeof v.id === 'string';
const AuthenticationResponse = z.custom<AuthenticationResponseJSON>(namesCredential);
const RegistrationResponse = z.custom<RegistrationResponseJSON>(namesCredential);

export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingParty(issuer: string): RelyingParty {
  const url = new URL(issuer);
  return { id: url.hostname, origin: url.origin, name: 'Keyflow' };
}

export async function registrationOptions(store: Store, rp: RelyingParty, session: SessionDoc, user: UserDoc) {
  const existing = await listPasskeys(store, user._id);
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name || user.email,
    userID: new TextEncoder().encode(user._id),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p._id, transports: p.transports as AuthenticatorTransport[] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await updateSession(store, session._id, { webauthnChallenge: options.challenge });
  return options;
}

export async function registerPasskey(
  store: Store,
  rp: RelyingParty,
  session: SessionDoc,
  user: UserDoc,
  answer: unknown,
  name: string,
): Promise<PasskeyDoc | null> {
  const expectedChallenge = await takeWebauthnChallenge(store, session._id);
  const parsed = RegistrationResponse.safeParse(answer);
  if (!expectedChallenge || !parsed.success) return null;
  const response = parsed.data;
  const verification = await verifyRegistrationResponse({ response, expectedChallenge, expectedOrigin: rp.origin, expectedRPID: rp.id }).catch(() => null);
  if (!verification?.verified || !verification.registrationInfo) return null;
  const { credential } = verification.registrationInfo;
  const doc: PasskeyDoc = {
    _id: credential.id,
    userId: user._id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: credential.transports ?? [],
    name,
    createdAt: currentDate(),
    lastUsedAt: null,
  };
  await insertPasskey(store, doc);
  return doc;
}

/** Options for signing in: any discoverable passkey (no user yet), or the given user's passkeys. */
export async function authenticationOptions(store: Store, rp: RelyingParty, session: SessionDoc, user: UserDoc | null) {
  const allow = user ? (await listPasskeys(store, user._id)).map((p) => ({ id: p._id, transports: p.transports as AuthenticatorTransport[] })) : [];
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: user ? 'preferred' : 'required', allowCredentials: allow });
  await updateSession(store, session._id, { webauthnChallenge: options.challenge });
  return options;
}

/** The passkey that answered the challenge, if valid (and of `userId`, when given). Updates its signature counter. */
export async function verifyPasskey(store: Store, rp: RelyingParty, session: SessionDoc, answer: unknown, userId: string | null): Promise<PasskeyDoc | null> {
  const expectedChallenge = await takeWebauthnChallenge(store, session._id);
  const parsed = AuthenticationResponse.safeParse(answer);
  if (!expectedChallenge || !parsed.success) return null;
  const response = parsed.data;
  const passkey = await findPasskey(store, response.id);
  if (!passkey || (userId !== null && passkey.userId !== userId)) return null;
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: { id: passkey._id, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.counter, transports: passkey.transports },
    requireUserVerification: userId === null,
  }).catch(() => null);
  if (!verification?.verified) return null;
  await recordPasskeyUse(store, passkey._id, verification.authenticationInfo.newCounter);
  return passkey;
}

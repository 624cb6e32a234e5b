// WebAuthn credentials (passkeys) of users.

export interface PasskeyDoc {
  _id: string; // credential id, base64url
  userId: string;
  publicKey: string; // COSE public key, base64url
  counter: number;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

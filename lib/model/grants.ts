// Grants: what one authorization (a code exchange, a device approval) gave a
// client. Every token carries its grant id; revoking the grant makes all of
// them unusable.

export interface GrantDoc {
  _id: string;
  clientId: string;
  userId: string;
  scope: string[];
  sid: string | null;
  /** How the user authenticated for this grant: refreshed tokens carry it on. */
  authTime?: Date;
  amr?: string[];
  acr?: string;
  /** Standard claims asked for at UserInfo with the `claims` parameter and allowed (none: absent). */
  userinfoClaims?: string[];
  /**
   * A client_credentials grant (machine-access.ts): the client acting for
   * itself, its `userId` the client's own id (the tokens' `sub`, RFC 9068 §2.2),
   * one grant per token, no refresh family. Absent on user grants.
   */
  machine?: true;
  /** Access tokens revoked one by one (RFC 7009), by jti. */
  revokedJtis?: string[];
  createdAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

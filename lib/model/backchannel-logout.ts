// What the BackchannelLogout workflow, its activity, its client (lib/flows)
// and the delivery records share. Pure: imported by the workflow too.

export interface BackchannelLogoutInput {
  /** The issuer that signed the session's ID tokens (the api's ISSUER). */
  issuer: string;
  sid: string;
  userId: string;
  clientIds: string[];
}

/** A logout token's lifetime: it is sent at once, and the RP checks it on receipt. */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;

/** The workflow id: one sign-out per session. */
export const logoutWorkflowId = (sid: string) => `logout:${sid}`;

/** The outcome of the logout token sent to one client. */
export interface LogoutDelivery {
  clientId: string;
  /** false when the client has no backchannel_logout_uri (nothing to send). */
  sent: boolean;
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number | null;
}

export interface LogoutDeliveryDoc extends LogoutDelivery {
  _id: string;
  sid: string;
  userId: string;
  at: Date;
  expiresAt: Date;
}

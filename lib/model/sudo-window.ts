// A sudo window of step-up 2FA ("don't ask again for N minutes") as every
// layer sees it: the SudoWindow workflow's input and states, the names of its
// messages, and the MongoDB projection's document. Pure module without Node
// built-ins (the workflow imports it), which is why the window id, a hash of
// the session's sid, is built in lib/store/sudo-windows.ts.

/** The window's owner: one window per (user, browser session, client). */
export interface SudoWindowKey {
  userId: string;
  /** The browser session's public id (`sid`): a new one at every sign-in and sign-out. */
  sid: string;
  clientId: string;
}

export interface SudoWindowInput {
  /** The workflow id (also the projection's `_id`). */
  windowId: string;
  /** This opening: a later opening of the same window is not ended by this one. */
  openingId: string;
  userId: string;
  sid: string;
  clientId: string;
  /** End of the window, epoch milliseconds (opening time + TTL). */
  expiresAt: number;
}

export type SudoWindowState = 'active' | 'ended' | 'revoked';

/** Why a window is revoked (sign-out, the user's request). */
export interface SudoRevocation {
  reason: string;
}

/** The revoke update's answer: false when the window had already ended. */
export interface SudoRevokeResult {
  revoked: boolean;
}

export interface SudoWindowDoc {
  _id: string; // the workflow id, sudoWindowId(key)
  userId: string;
  sid: string;
  clientId: string;
  /** This opening of the window: the workflow's end writes only over its own opening. */
  openingId: string;
  status: SudoWindowState;
  openedAt: Date;
  expiresAt: Date;
  endedAt?: Date;
}

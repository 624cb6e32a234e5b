// A webhook as stored: where events go, which ones, and its sealed signing secret.
import type { Sealed } from '../security/kek.js';
import type { WebhookScope } from './webhook-events.js';

export interface WebhookDoc {
  _id: string;
  scope: WebhookScope;
  /** User webhooks: the owner. Admin webhooks: the admin who created it (they belong to the site). */
  ownerUserId: string | null;
  name: string;
  url: string;
  events: string[];
  isActive: boolean;
  secret: Sealed;
  createdAt: Date;
  updatedAt: Date;
  /** The `_id` of the owner's slot it holds (store/webhook-slots.ts). */
  slot?: string;
}

/** How many webhooks one user (user scope) or the site (admin scope) may have: each holds one of that many slots. */
export const WEBHOOK_LIMITS: Record<WebhookScope, number> = { user: 20, admin: 50 };

/** `webhook_slots`: slot `<scope>:<owner id or 'site'>:<n>` and the webhook holding it (store/webhook-slots.ts). */
export interface WebhookSlotDoc {
  _id: string;
  webhookId: string;
  /** When it was claimed: a slot whose webhook is missing is taken over only once this is older than a grace period. */
  claimedAt: Date;
}

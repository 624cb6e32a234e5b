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
}

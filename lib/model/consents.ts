// What each user has allowed each client: consent is skipped when the scopes
// asked for were all granted before.

export interface ConsentDoc {
  _id: string; // `${userId}:${clientId}`
  userId: string;
  clientId: string;
  scopes: string[];
  /** Standard claims allowed one by one (the `claims` parameter), beyond those of the scopes; absent: none. */
  claims?: string[];
  updatedAt: Date;
}

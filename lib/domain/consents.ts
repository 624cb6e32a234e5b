// What each user has allowed each client: consent is skipped when the scopes
// asked for were all granted before.

export interface ConsentDoc {
  _id: string; // `${userId}:${clientId}`
  userId: string;
  clientId: string;
  scopes: string[];
  updatedAt: Date;
}

// oidc-provider's documented adapter interface over the `mongodb` driver, as a
// careful operator would write it for FerretDB v1: one collection per model,
// documents `{ _id, payload, expiresAt }`. FerretDB v1 has no TTL index, so an
// expired document is treated as missing when read (and the benchmark drops
// the whole database when it ends). Reads by id filter on `_id` alone: that is
// the only filter FerretDB v1 pushes down to SQLite.
import type { Adapter, AdapterPayload } from './provider-types.js';
import { MongoClient, type Collection, type Db } from 'mongodb';
import type { AccountClaims, AccountStore } from './accounts.js';

interface StoredArtifact {
  _id: string;
  payload: AdapterPayload;
  expiresAt?: Date;
}

/** Which payload fields each model is looked up by besides its id. */
const LOOKUPS: Record<string, string[]> = {
  Session: ['payload.uid'],
  DeviceCode: ['payload.userCode', 'payload.grantId'],
  AccessToken: ['payload.grantId'],
  AuthorizationCode: ['payload.grantId'],
  RefreshToken: ['payload.grantId'],
  BackchannelAuthenticationRequest: ['payload.grantId'],
};

const live = (doc: StoredArtifact | null): AdapterPayload | undefined =>
  doc && (!doc.expiresAt || doc.expiresAt.getTime() > Date.now()) ? doc.payload : undefined;

/** Connects and returns the adapter class oidc-provider instantiates once per model. */
export async function mongoAdapter(
  uri: string,
  database: string,
): Promise<{ Adapter: new (name: string) => Adapter; accounts: AccountStore; close: () => Promise<void> }> {
  const client = await new MongoClient(uri).connect();
  const db: Db = client.db(database);
  for (const [model, fields] of Object.entries(LOOKUPS)) {
    for (const field of fields) await db.collection(model).createIndex({ [field]: 1 });
  }

  class MongoAdapter implements Adapter {
    private readonly coll: Collection<StoredArtifact>;

    constructor(name: string) {
      this.coll = db.collection<StoredArtifact>(name);
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const doc: Omit<StoredArtifact, '_id'> = expiresIn ? { payload, expiresAt: new Date(Date.now() + expiresIn * 1000) } : { payload };
      await this.coll.replaceOne({ _id: id }, doc, { upsert: true });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return live(await this.coll.findOne({ _id: id }));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return live(await this.coll.findOne({ 'payload.userCode': userCode }));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return live(await this.coll.findOne({ 'payload.uid': uid }));
    }

    async consume(id: string): Promise<void> {
      await this.coll.updateOne({ _id: id }, { $set: { 'payload.consumed': Math.floor(Date.now() / 1000) } });
    }

    async destroy(id: string): Promise<void> {
      await this.coll.deleteOne({ _id: id });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await this.coll.deleteMany({ 'payload.grantId': grantId });
    }
  }

  // Accounts live in the same database, as an operator's user table would.
  const accountColl = db.collection<{ _id: string; claims: AccountClaims }>('accounts');
  const accounts: AccountStore = {
    async save(claims) {
      await accountColl.replaceOne({ _id: claims.sub }, { claims }, { upsert: true });
    },
    async find(id) {
      return (await accountColl.findOne({ _id: id }))?.claims;
    },
  };

  return { Adapter: MongoAdapter, accounts, close: () => client.close() };
}

/** Drops the peer's database (before a run, and after it: the benchmark leaves nothing behind). */
export async function dropPeerDatabase(uri: string, database: string): Promise<void> {
  const client = await new MongoClient(uri).connect();
  try {
    await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}

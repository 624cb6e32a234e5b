// The part of oidc-provider 9's API the benchmark peer uses. The package ships
// no type declarations; the tests' ambient declaration
// (test/support/oidc-provider.d.ts) types only its constructor and callback,
// so the peer names the rest here and views its Provider as PeerProvider.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What an adapter stores for one model instance (oidc-provider's documented adapter interface). */
export interface AdapterPayload {
  [key: string]: unknown;
  uid?: string;
  userCode?: string;
  grantId?: string;
  consumed?: number;
}

export interface Adapter {
  upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
  find(id: string): Promise<AdapterPayload | undefined>;
  findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
  findByUid(uid: string): Promise<AdapterPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

export type AdapterFactory = new (modelName: string) => Adapter;

export interface Account {
  accountId: string;
  claims(use: string, scope: string): Promise<Record<string, unknown>>;
}

export interface ClientMetadata {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  id_token_signed_response_alg: string;
  scope: string;
}

/** A type alias, not an interface: the tests' declaration takes a Record<string, unknown>. */
export type Configuration = {
  adapter?: AdapterFactory;
  clients: ClientMetadata[];
  jwks: { keys: Record<string, unknown>[] };
  cookies: { keys: string[] };
  claims: Record<string, string[]>;
  scopes: string[];
  pkce: { required: () => boolean };
  features: Record<string, Record<string, unknown>>;
  interactions: { url: (ctx: unknown, interaction: { uid: string }) => string };
  loadExistingGrant: (ctx: ProviderContext) => Promise<GrantInstance | undefined>;
  findAccount: (ctx: unknown, sub: string) => Promise<Account | undefined>;
  rotateRefreshToken: boolean;
  ttl: Record<string, number>;
  renderError: (ctx: unknown, out: Record<string, unknown>, error: Error) => void;
};

/** The parts of koa's context (with ctx.oidc) that loadExistingGrant reads. */
export interface ProviderContext {
  oidc: {
    provider: PeerProvider;
    client?: { clientId: string };
    session?: { grantIdFor(clientId: string): string | undefined };
    result?: { consent?: { grantId?: string } };
  };
}

export interface GrantInstance {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

export interface GrantClass {
  new (init: { accountId: string; clientId: string }): GrantInstance;
  find(id: string): Promise<GrantInstance | undefined>;
}

export interface InteractionDetails {
  uid: string;
  prompt: { name: string; details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> } };
  params: Record<string, unknown>;
  grantId?: string;
}

export interface InteractionResults {
  login?: { accountId: string };
  consent?: { grantId: string };
}

export interface PeerProvider {
  readonly Grant: GrantClass;
  proxy: boolean;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: InteractionResults): Promise<void>;
  on(event: 'server_error', listener: (ctx: unknown, error: Error) => void): this;
}

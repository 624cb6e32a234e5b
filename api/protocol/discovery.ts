// Discovery documents and the JWKS. Public, cacheable, and readable from
// browsers (CORS), as RPs written for the browser fetch them directly.
import { Router, type Response } from 'express';
import { authorizationServerMetadata, protectedResourceMetadata, type Capabilities } from '../../lib/model/discovery.js';
import { JWKS_MAX_AGE_SECONDS } from '../../lib/model/key-phases.js';
import type { Keyring } from '../../lib/keys/keyring.js';
import { WELL_KNOWN } from '../paths.js';

// Metadata changes only with a deployment. A new key is published longer than
// the JWKS's max-age before it signs (model/key-phases.ts), so no cached copy lacks it.
const METADATA_CACHE = 'public, max-age=3600';
const JWKS_CACHE = `public, max-age=${JWKS_MAX_AGE_SECONDS}`;

function sendPublicJson(res: Response, body: unknown, cacheControl: string, contentType = 'application/json'): void {
  res.set({ 'Cache-Control': cacheControl, 'Access-Control-Allow-Origin': '*' }).type(contentType).send(JSON.stringify(body));
}

export function discoveryRoutes(issuer: string, keyring: Keyring, capabilities: Capabilities): Router {
  const router = Router();
  const asMetadata = authorizationServerMetadata(issuer, capabilities);
  const prMetadata = protectedResourceMetadata(issuer);

  router.get(WELL_KNOWN.openidConfiguration, (_req, res) => sendPublicJson(res, asMetadata, METADATA_CACHE));
  router.get(WELL_KNOWN.oauthAuthorizationServer, (_req, res) => sendPublicJson(res, asMetadata, METADATA_CACHE));
  router.get(WELL_KNOWN.protectedResource, (_req, res) => sendPublicJson(res, prMetadata, METADATA_CACHE));
  router.get(WELL_KNOWN.jwks, async (_req, res) => {
    sendPublicJson(res, await keyring.jwks(), JWKS_CACHE, 'application/jwk-set+json');
  });
  return router;
}

export { sendPublicJson };

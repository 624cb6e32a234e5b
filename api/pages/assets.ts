// Static assets of the browser pages, all served by Keyflow itself (no external assets).
import path from 'node:path';
import express, { Router } from 'express';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { ASSETS } from '../paths.js';

export function assetRoutes(): Router {
  const router = Router();
  const options = { maxAge: '1h', immutable: false, index: false, fallthrough: false } as const;
  router.get(`${ASSETS}/simplewebauthn-browser.js`, (_req, res) => {
    res.set('Cache-Control', 'public, max-age=3600').sendFile(path.join(PROJECT_ROOT, 'node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js'));
  });
  // Where browsers look for a site's icon without being told (the pages also name the SVG one).
  router.get('/favicon.ico', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').type('image/x-icon').sendFile(path.join(PROJECT_ROOT, 'api/assets/favicon.ico'));
  });
  router.use(ASSETS, express.static(path.join(PROJECT_ROOT, 'api/assets'), options));
  return router;
}

// Liveness and readiness. /readyz answers 200 only when MongoDB and Temporal
// both answer; otherwise 503 naming the one that failed (while the api starts,
// MongoDB's check says what the start waits for).
import { Router } from 'express';
import { checkTemporal, type TemporalHandle } from '../lib/temporal/connection.js';
import { RETRY_AFTER_SECONDS } from '../lib/runtime/unavailable.js';
import { HEALTH } from './paths.js';
import { HEALTH_CHECK_TIMEOUT_MS, probe } from '../lib/runtime/health-probe.js';

/** `checkMongo` resolves when MongoDB answers (a ping), or rejects saying why not. */
export function healthRoutes(checkMongo: () => Promise<unknown>, temporal: TemporalHandle): Router {
  const router = Router();
  router.get(HEALTH.live, (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get(HEALTH.ready, async (_req, res) => {
    const [mongodb, temporalStatus] = await Promise.all([probe(checkMongo), probe(() => checkTemporal(temporal, HEALTH_CHECK_TIMEOUT_MS))]);
    const checks = { mongodb, temporal: temporalStatus };
    const ready = mongodb === 'ok' && temporalStatus === 'ok';
    // A 503 says when to ask again, as every 503 of Keyflow does.
    if (!ready) res.set('Retry-After', String(RETRY_AFTER_SECONDS));
    res
      .status(ready ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({ status: ready ? 'ready' : 'unavailable', checks });
  });
  return router;
}

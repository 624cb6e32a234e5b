// Headers on every response. HTML pages set their own, stricter CSP with a nonce.
import type { RequestHandler } from 'express';

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  });
  next();
};

/**
 * With an https issuer, every response carries HSTS (two years): a browser
 * that has seen Keyflow once never talks to it over plain http again.
 */
export function strictTransportSecurity(issuer: string): RequestHandler {
  const https = issuer.startsWith('https:');
  return (_req, res, next) => {
    if (https) res.set('Strict-Transport-Security', 'max-age=63072000');
    next();
  };
}

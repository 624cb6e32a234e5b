// What `npm start` admits for webhooks on a development issuer: loopback
// receivers, only when the issuer is plain http on this machine and the
// operator set no OUTBOUND_ALLOWLIST; and the value is one the configuration
// reads as three webhook entries.
import { parseConfig } from '../../../lib/config/env.js';
import { LOCAL_WEBHOOKS_ALLOWLIST, localWebhooksAllowlist } from '../../../tools/scripts/local-webhooks.js';

describe('local webhook receivers under npm start', () => {
  it('are admitted for an http issuer on this machine when OUTBOUND_ALLOWLIST is not set', () => {
    for (const issuer of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000'])
      expect(localWebhooksAllowlist(issuer, {})).toBe(LOCAL_WEBHOOKS_ALLOWLIST);
  });

  it('are not for a public or https issuer, nor over an operator’s own OUTBOUND_ALLOWLIST (even empty)', () => {
    expect(localWebhooksAllowlist('https://localhost:3000', {})).toBeNull();
    expect(localWebhooksAllowlist('https://id.example.com', {})).toBeNull();
    expect(localWebhooksAllowlist('http://id.example.com', {})).toBeNull();
    expect(localWebhooksAllowlist('http://localhost:3000', { OUTBOUND_ALLOWLIST: '' })).toBeNull();
    expect(localWebhooksAllowlist('http://localhost:3000', { OUTBOUND_ALLOWLIST: 'webhooks=hooks.internal:8443' })).toBeNull();
  });

  it('is read by the configuration as webhook entries for every port of the loopback names', () => {
    const parsed = parseConfig({ ISSUER: 'http://localhost:3000', OUTBOUND_ALLOWLIST: LOCAL_WEBHOOKS_ALLOWLIST }, '/srv/keyflow');
    expect(parsed.ok && parsed.config.outbound.allow).toEqual([
      { feature: 'webhooks', host: 'localhost', port: '*' },
      { feature: 'webhooks', host: '127.0.0.1', port: '*' },
      { feature: 'webhooks', host: '::1', port: '*' },
    ]);
  });
});

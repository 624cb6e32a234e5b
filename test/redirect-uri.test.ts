import { checkRedirectUri, matchesRedirectUri, normalizeUri, precheckRedirectUri } from '../domain/redirect-uri.js';
import type { RedirectUriEntry } from '../domain/clients.js';

const equals = (value: string): RedirectUriEntry => ({ type: 'equals', value });
const wildcard = (value: string): RedirectUriEntry => ({ type: 'wildcard', value });
const regex = (value: string): RedirectUriEntry => ({ type: 'regex', value });
const NOT_REGISTERED = { ok: false, reason: 'redirect_uri is not registered for this client' };

describe('precheckRedirectUri', () => {
  it.each([
    'https://example.com/cb',
    'https://example.com:8443/cb?x=1',
    'http://localhost/cb',
    'http://LOCALHOST:3000/cb',
    'http://127.0.0.1:8080/cb',
    'http://127.1.2.3/cb',
    'http://[::1]:8080/cb',
  ])('accepts %s', (uri) => {
    expect(precheckRedirectUri(uri)).toBeNull();
  });

  it.each([
    ['http://example.com/cb', 'must use https (http only for loopback hosts)'],
    ['http://localhost.evil.com/cb', 'must use https (http only for loopback hosts)'],
    ['http://127.0.0.1.evil.com/cb', 'must use https (http only for loopback hosts)'],
    ['https://user@example.com/cb', 'must not contain userinfo'],
    ['https://user:pw@example.com/cb', 'must not contain userinfo'],
    ['https://example.com/cb#frag', 'must not contain a fragment'],
    ['https://example.com/cb#', 'must not contain a fragment'],
    ['https://example.com/c\tb', 'must not contain whitespace or control characters'],
    ['https://example.com/cb\n', 'must not contain whitespace or control characters'],
    ['/cb', 'must be an absolute URI'],
    ['example.com/cb', 'must be an absolute URI'],
    ['not a uri', 'must be an absolute URI'],
    ['', 'must be an absolute URI'],
    ['javascript:alert(1)', 'must use https (http only for loopback hosts)'],
    ['data:text/html,hi', 'must use https (http only for loopback hosts)'],
    ['com.example.app:/cb', 'must use https (http only for loopback hosts)'],
    ['ftp://example.com/cb', 'must use https (http only for loopback hosts)'],
  ])('refuses %j: %s', (uri, reason) => {
    expect(precheckRedirectUri(uri)).toBe(reason);
  });
});

describe('normalizeUri', () => {
  it.each([
    ['HTTPS://Example.COM/cb', 'https://example.com/cb'],
    ['https://example.com:443/cb', 'https://example.com/cb'],
    ['http://localhost:80/cb', 'http://localhost/cb'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com/a b', 'https://example.com/a%20b'],
    ['https://example.com/CB?Q=1', 'https://example.com/CB?Q=1'],
    ['not a uri', null],
    ['/relative', null],
  ])('%j -> %j', (uri, normalized) => {
    expect(normalizeUri(uri)).toBe(normalized);
  });
});

describe('matchesRedirectUri', () => {
  it.each([
    // Equals compares normalized forms: scheme/host case, default port and empty path do not matter ...
    [equals('https://example.com/cb'), 'https://example.com/cb', true],
    [equals('https://example.com/cb'), 'HTTPS://EXAMPLE.COM/cb', true],
    [equals('https://Example.com/cb'), 'https://example.com/cb', true],
    [equals('https://example.com/cb'), 'https://example.com:443/cb', true],
    [equals('https://example.com'), 'https://example.com/', true],
    [equals('https://example.com/'), 'https://example.com', true],
    [equals('https://example.com/a%20b'), 'https://example.com/a b', true],
    // ... but path (including its case), query and port do.
    [equals('https://example.com/cb'), 'https://example.com/CB', false],
    [equals('https://example.com/cb'), 'https://example.com/cb/', false],
    [equals('https://example.com/cb'), 'https://example.com/cb2', false],
    [equals('https://example.com/cb'), 'https://example.com/cb?x=1', false],
    [equals('https://example.com/cb?x=1'), 'https://example.com/cb?x=2', false],
    [equals('https://example.com/cb'), 'https://example.com:8443/cb', false],
    [equals('https://example.com/cb'), 'http://example.com/cb', false],
    [equals('https://example.com/cb'), 'https://example.com.evil.com/cb', false],
    [equals('not a uri'), 'not a uri', false],

    // Wildcard: `*` is any run of characters, everything else literal, anchored on the whole URI.
    [wildcard('https://*.example.com/cb'), 'https://a.example.com/cb', true],
    [wildcard('https://*.example.com/cb'), 'https://a.b.example.com/cb', true],
    [wildcard('https://*.example.com/cb'), 'https://example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://a.example.com/cb/extra', false],
    [wildcard('https://*.example.com/cb'), 'xhttps://a.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://a.exampleXcom/cb', false],
    // In the host, `*` cannot reach into the path or query: these go to evil.com.
    [wildcard('https://*.example.com/cb'), 'https://evil.com/x.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://evil.com?.example.com/cb', false],
    [wildcard('http://localhost:*/cb'), 'http://localhost:8080/cb', true],
    [wildcard('https://app.example.com/*'), 'https://app.example.com/', true],
    [wildcard('https://app.example.com/*'), 'https://app.example.com/a/b?c=d', true],
    [wildcard('https://a.example/cb?x=*'), 'https://a.example/cb?x=1', true],
    [wildcard('https://a.example/cb?x=*'), 'https://a.example/cx=1', false],
    [wildcard('https://a.example/cb?x=*'), 'https://a.example/cbx=1', false],
    [wildcard('https://a.example/c+b(1)'), 'https://a.example/c+b(1)', true],
    [wildcard('https://a.example/c+b(1)'), 'https://a.example/ccb1', false],
    [wildcard('https://a.example/cb'), 'https://a.example/cb', true],

    // Regex: must match the whole URI, never a prefix or substring.
    [regex('https://good\\.example/cb'), 'https://good.example/cb', true],
    [regex('https://good\\.example/cb'), 'https://good.example/cb/../evil', false],
    [regex('https://good\\.example/cb'), 'https://good.example/cbx', false],
    [regex('https://good\\.example/cb'), 'xhttps://good.example/cb', false],
    [regex('https://good\\.example'), 'https://good.example.evil.com', false],
    [regex('https://good\\.example/cb'), 'https://goodXexample/cb', false],
    [regex('https://[a-z]+\\.example/cb'), 'https://abc.example/cb', true],
    [regex('https://a\\.example/cb|https://b\\.example/cb'), 'https://a.example/cb', true],
    [regex('https://a\\.example/cb|https://b\\.example/cb'), 'https://b.example/cb', true],
    [regex('https://a\\.example/cb|https://b\\.example/cb'), 'https://a.example/cbEVIL', false],
    [regex('https://a\\.example/cb|https://b\\.example/cb'), 'EVILhttps://b.example/cb', false],
    [regex('^https://good\\.example/cb$'), 'https://good.example/cb', true],
    // An invalid regex matches nothing (and does not throw).
    [regex('('), 'https://a.example/cb', false],
    [regex('https://a.example/[cb'), 'https://a.example/[cb', false],
    [regex('a)|(b'), 'a', false],
  ])('%j vs %s -> %s', (entry, candidate, expected) => {
    expect(matchesRedirectUri(entry, candidate)).toBe(expected);
  });
});

describe('checkRedirectUri', () => {
  it.each([
    // Learning: with no registered entry, any pre-checked URI is accepted and learned ...
    [[], 'https://example.com/cb', { ok: true, learn: true }],
    [[], 'http://127.0.0.1:5000/cb', { ok: true, learn: true }],
    // ... but the pre-check still applies.
    [[], 'http://example.com/cb', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],
    [[], 'https://example.com/cb#', { ok: false, reason: 'redirect_uri must not contain a fragment' }],
    [[], 'javascript:alert(1)', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],

    [[equals('https://example.com/cb')], 'https://EXAMPLE.com:443/cb', { ok: true, learn: false }],
    [[equals('https://example.com/cb')], 'https://example.com/other', NOT_REGISTERED],
    [[equals('https://a.example/cb'), wildcard('https://*.b.example/cb')], 'https://x.b.example/cb', { ok: true, learn: false }],
    [[equals('https://a.example/cb'), wildcard('https://*.b.example/cb')], 'https://x.c.example/cb', NOT_REGISTERED],
    // A valid entry still matches when another entry is an invalid regex.
    [[regex('('), equals('https://a.example/cb')], 'https://a.example/cb', { ok: true, learn: false }],
    [[regex('(')], 'https://a.example/cb', NOT_REGISTERED],
    [[regex('https://good\\.example/cb')], 'https://good.example/cb/../evil', NOT_REGISTERED],

    // The unsafe `.*` regex accepts anything that passed the pre-check, nothing else.
    [[regex('.*')], 'https://anything.example/any?path', { ok: true, learn: false }],
    [[regex('.*')], 'http://localhost:1234/cb', { ok: true, learn: false }],
    [[regex('.*')], 'http://evil.com/cb', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],
    [[regex('.*')], 'https://evil.com/cb#x', { ok: false, reason: 'redirect_uri must not contain a fragment' }],
    [[regex('.*')], 'https://user@evil.com/cb', { ok: false, reason: 'redirect_uri must not contain userinfo' }],
    [[regex('.*')], 'javascript:alert(1)', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],
    [[regex('.*')], '/relative', { ok: false, reason: 'redirect_uri must be an absolute URI' }],
    // Registered entries cannot lift the pre-check either.
    [[equals('http://example.com/cb')], 'http://example.com/cb', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],
  ] as [RedirectUriEntry[], string, unknown][])('%j with %s -> %j', (entries, candidate, expected) => {
    expect(checkRedirectUri(entries, candidate)).toEqual(expected);
  });
});

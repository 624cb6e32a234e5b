import {
  checkRedirectUri,
  matchesRedirectUri,
  normalizeUri,
  precheckRedirectUri,
  redirectUriEntryProblem,
  type RedirectUriEntry,
} from '../../../lib/model/redirect-uri.js';

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
    `https://example.com/${'a'.repeat(2048 - 20)}`,
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
    // Long candidates are refused before anything parses or matches them.
    [`https://example.com/${'a'.repeat(2049 - 20)}`, 'must be at most 2048 characters'],
    [`https://${'a'.repeat(5000)}`, 'must be at most 2048 characters'],
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

    // Wildcard: the `*` is one or more letters, digits or hyphens of the leftmost host label ...
    [wildcard('https://*.example.com/cb'), 'https://a.example.com/cb', true],
    [wildcard('https://*.example.com/cb'), 'https://pr-12.example.com/cb', true],
    [wildcard('https://*.example.com/cb'), 'https://A-B.EXAMPLE.com/cb', true],
    [wildcard('https://*.Example.COM/cb'), 'https://a.example.com/cb', true],
    [wildcard('https://*.example.com/cb'), 'https://xn--4ca.example.com/cb', true],
    [wildcard('https://*.example.com/cb'), 'https://ä.example.com/cb', true],
    [wildcard('https://pr-*.preview.example.com/cb'), 'https://pr-42.preview.example.com/cb', true],
    [wildcard('https://pr-*.preview.example.com/cb'), 'https://PR-42.preview.example.com/cb', true],
    [wildcard('https://pr-*.preview.example.com/cb'), 'https://pr-.preview.example.com/cb', false],
    [wildcard('https://pr-*.preview.example.com/cb'), 'https://qr-42.preview.example.com/cb', false],
    [wildcard('https://*-app.example.com/cb'), 'https://pr-1-app.example.com/cb', true],
    [wildcard('https://*-app.example.com/cb'), 'https://-app.example.com/cb', false],
    [wildcard('https://a*a.example.com/cb'), 'https://aa.example.com/cb', false],
    [wildcard('https://a*a.example.com/cb'), 'https://aba.example.com/cb', true],
    // ... never a dot, never nothing, never another character.
    [wildcard('https://*.example.com/cb'), 'https://a.b.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://a_b.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://a.exampleXcom/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://a.example.com.evil.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://evil.com/x.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://evil.com?.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://evil.com/.example.com/cb', false],
    // Scheme, port, path and query equal the entry's after normalization.
    [wildcard('https://*.example.com/cb'), 'https://a.example.com:443/cb', true],
    [wildcard('https://*.example.com/cb'), 'https://a.example.com/x/../cb', true],
    [wildcard('https://*.example.com/cb'), 'http://a.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'xhttps://a.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://a.example.com:8443/cb', false],
    [wildcard('https://*.example.com:8443/cb'), 'https://a.example.com:8443/cb', true],
    [wildcard('https://*.example.com:8443/cb'), 'https://a.example.com/cb', false],
    [wildcard('https://*.example.com/cb'), 'https://a.example.com/cb/extra', false],
    [wildcard('https://*.example.com/cb'), 'https://a.example.com/CB', false],
    [wildcard('https://*.example.com/cb'), 'https://a.example.com/cb?x=1', false],
    [wildcard('https://*.example.com/cb?x=1'), 'https://a.example.com/cb?x=1', true],
    [wildcard('https://*.example.com/cb?x=1'), 'https://a.example.com/cb?x=2', false],
    [wildcard('https://*.example.com'), 'https://a.example.com/', true],
    // A stored entry that breaks the rules matches nothing (not even what the old glob matched).
    [wildcard('http://localhost:*/cb'), 'http://localhost:8080/cb', false],
    [wildcard('https://app.example.com/*'), 'https://app.example.com/cb', false],
    [wildcard('https://a.example/cb?x=*'), 'https://a.example/cb?x=1', false],
    [wildcard('https://*.*.example.com/cb'), 'https://a.b.example.com/cb', false],
    [wildcard('https://*.com/cb'), 'https://evil.com/cb', false],
    [wildcard('https://a.*.example.com/cb'), 'https://a.b.example.com/cb', false],
    [wildcard('https://a.example/cb'), 'https://a.example/cb', false],

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
    [regex('(?i)https://GOOD\\.example/cb'), 'https://good.example/cb', true],
    [regex('https://(a+)+\\.example\\.com/cb'), 'https://aaaa.example.com/cb', true],
    [regex('https://(a+)+\\.example\\.com/cb'), `https://${'a'.repeat(40)}!.example.com/cb`, false],
    [regex('.*'), 'https://anything.example/x', true],
    // An invalid regex matches nothing (and does not throw) ...
    [regex('('), 'https://a.example/cb', false],
    [regex('https://a.example/[cb'), 'https://a.example/[cb', false],
    [regex('a)|(b'), 'a', false],
    // ... nor does one stored before the linear engine and its caps: backreference, lookaround, too long, too big.
    [regex('https://(a)\\1\\.example/cb'), 'https://aa.example/cb', false],
    [regex('https://(?=a)a\\.example/cb'), 'https://a.example/cb', false],
    [regex(`https://a\\.example/${'c?'.repeat(250)}`), 'https://a.example/', false],
    [regex('https://a\\.example/.{0,600}'), 'https://a.example/cb', false],
    [regex('https://a\\.example/.{0,600}.{0,600}'), 'https://a.example/cb', false],
  ])('%j vs %s -> %s', (entry, candidate, expected) => {
    expect(matchesRedirectUri(entry, candidate)).toBe(expected);
  });
});

describe('checkRedirectUri', () => {
  it.each([
    // Nothing is learned: with no registered entry nothing is accepted, and the pre-check still speaks first.
    [[], 'https://example.com/cb', { ok: false, reason: 'this client has no registered redirect URI' }],
    [[], 'http://example.com/cb', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],
    [[], 'javascript:alert(1)', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],

    [[equals('https://example.com/cb')], 'https://EXAMPLE.com:443/cb', { ok: true }],
    [[equals('https://example.com/cb')], 'https://example.com/other', NOT_REGISTERED],
    [[equals('https://a.example/cb'), wildcard('https://*.b.example/cb')], 'https://x.b.example/cb', { ok: true }],
    [[equals('https://a.example/cb'), wildcard('https://*.b.example/cb')], 'https://x.c.example/cb', NOT_REGISTERED],
    // A valid entry still matches when another entry is an invalid regex.
    [[regex('('), equals('https://a.example/cb')], 'https://a.example/cb', { ok: true }],
    [[regex('(')], 'https://a.example/cb', NOT_REGISTERED],
    [[regex('https://good\\.example/cb')], 'https://good.example/cb/../evil', NOT_REGISTERED],

    // The unsafe `.*` regex accepts anything that passed the pre-check, nothing else.
    [[regex('.*')], 'https://anything.example/any?path', { ok: true }],
    [[regex('.*')], 'http://localhost:1234/cb', { ok: true }],
    [[regex('.*')], 'http://evil.com/cb', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],
    [[regex('.*')], 'https://evil.com/cb#x', { ok: false, reason: 'redirect_uri must not contain a fragment' }],
    [[regex('.*')], 'https://user@evil.com/cb', { ok: false, reason: 'redirect_uri must not contain userinfo' }],
    [[regex('.*')], 'javascript:alert(1)', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],
    [[regex('.*')], '/relative', { ok: false, reason: 'redirect_uri must be an absolute URI' }],
    // Over-long candidates are refused before any entry is tried.
    [[regex('.*')], `https://a.example/${'a'.repeat(2048)}`, { ok: false, reason: 'redirect_uri must be at most 2048 characters' }],
    // Registered entries cannot lift the pre-check either.
    [[equals('http://example.com/cb')], 'http://example.com/cb', { ok: false, reason: 'redirect_uri must use https (http only for loopback hosts)' }],
  ] as [RedirectUriEntry[], string, unknown][])('%j with %s -> %j', (entries, candidate, expected) => {
    expect(checkRedirectUri(entries, candidate)).toEqual(expected);
  });
});

describe('redirectUriEntryProblem', () => {
  const WILDCARD_PLACE = 'may have its * only in the leftmost label of the host (e.g. https://*.example.com/cb)';
  const NOT_RE2 = 'is not a valid regular expression for the linear-time engine (RE2 syntax: no backreferences, no lookahead or lookbehind)';
  const TOO_COMPLEX =
    'is too complex for the linear-time regular expression engine (at most 1000 instructions once compiled; large {n,m} counts are the usual cause)';

  it.each([
    equals('https://example.com/cb'),
    equals('http://127.0.0.1:8080/cb'),
    equals(`https://example.com/${'a'.repeat(2048 - 20)}`),
    wildcard('https://*.example.com/cb'),
    wildcard('https://pr-*.preview.example.com/cb'),
    wildcard('https://*-app.example.com:8443/cb?x=1'),
    wildcard('https://*.example.com'),
    wildcard('HTTPS://*.Example.COM/cb'),
    regex('https://good\\.example/cb'),
    regex('^https://app\\.example/(a|b)$'),
    regex('(?i)https://[a-z0-9-]{1,63}\\.example\\.com/cb'),
    regex(`https://${'[a-z]{1,63}'.repeat(7)}\\.example/cb`),
    // Any pattern within the length cap without large counts fits the compiled size cap.
    regex(`https://a\\.example/${'()'.repeat(240)}`),
    regex('.?'.repeat(250)),
    regex('https://(?P<env>dev|prod)\\.example\\.com/cb'),
    // Harmless in a linear-time engine, so no longer refused.
    regex('https://(a+)+\\.example\\.com/cb'),
    // The documented unsafe configuration stays allowed.
    regex('.*'),
    regex(`https://a\\.example/${'c'.repeat(500 - 19)}`),
  ])('accepts %j', (entry) => {
    expect(redirectUriEntryProblem(entry)).toBeNull();
  });

  it.each([
    // Equals: the pre-check.
    [equals('http://example.com/cb'), 'must use https (http only for loopback hosts)'],
    [equals('https://example.com/cb#x'), 'must not contain a fragment'],
    [equals(`https://example.com/${'a'.repeat(2049 - 20)}`), 'must be at most 2048 characters'],
    // Wildcard: exactly one `*`, in the leftmost host label, of a DNS host with two fixed labels after it ...
    [wildcard('https://a.example.com/cb'), 'must contain exactly one * (e.g. https://*.example.com/cb)'],
    [wildcard('https://*.*.example.com/cb'), 'must contain exactly one * (e.g. https://*.example.com/cb)'],
    [wildcard('https://*.example.com/*'), 'must contain exactly one * (e.g. https://*.example.com/cb)'],
    [wildcard('https://app.example.com/*'), WILDCARD_PLACE],
    [wildcard('https://a.example/cb?x=*'), WILDCARD_PLACE],
    [wildcard('http://localhost:*/cb'), WILDCARD_PLACE],
    [wildcard('https*://a.example.com/cb'), WILDCARD_PLACE],
    [wildcard('https://a.*.example.com/cb'), WILDCARD_PLACE],
    [wildcard('https://example.*/cb'), WILDCARD_PLACE],
    [wildcard('https://a*b*.example.com/cb'), 'must contain exactly one * (e.g. https://*.example.com/cb)'],
    [wildcard('https://*_x.example.com/cb'), WILDCARD_PLACE],
    [wildcard('https://[*::1]/cb'), WILDCARD_PLACE],
    [wildcard('https://*.ex_ample.com/cb'), 'must name a DNS host: labels of letters, digits and hyphens'],
    [wildcard('https://*..example.com/cb'), 'must name a DNS host: labels of letters, digits and hyphens'],
    [wildcard('https://*.10.0.0.1/cb'), 'must name a DNS host: labels of letters, digits and hyphens'],
    [wildcard('https://*.com/cb'), 'must keep at least two fixed labels after the * label (e.g. https://*.example.com/cb, not https://*.com/cb)'],
    [wildcard('https://*/cb'), 'must keep at least two fixed labels after the * label (e.g. https://*.example.com/cb, not https://*.com/cb)'],
    [wildcard('*.example.com/cb'), 'must be an absolute URI'],
    // ... and passes the pre-check like an Equals entry.
    [wildcard('http://*.example.com/cb'), 'must use https (http only for loopback hosts)'],
    [wildcard('http://*.localhost.example/cb'), 'must use https (http only for loopback hosts)'],
    [wildcard('ftp://*.example.com/cb'), 'must use https (http only for loopback hosts)'],
    [wildcard('https://*.example.com/cb#x'), 'must not contain a fragment'],
    [wildcard('https://u@*.example.com/cb'), 'must not contain userinfo'],
    [wildcard('https://*.example.com/c b'), 'must not contain whitespace or control characters'],
    [wildcard(`https://*.example.com/${'a'.repeat(2049 - 22)}`), 'must be at most 2048 characters'],
    // Regex: RE2 syntax (no backreference, no lookaround), the length cap, the compiled size cap.
    [regex('('), `${NOT_RE2} (missing closing ): ()`],
    [regex('https://a.example/[cb'), `${NOT_RE2} (missing closing ]: [cb)`],
    [regex('https://(a)\\1\\.example/cb'), `${NOT_RE2} (invalid escape sequence: \\1)`],
    [regex('https://(?=a)a\\.example/cb'), `${NOT_RE2} (invalid or unsupported Perl syntax: (?=)`],
    [regex('https://a\\.example/(?!x)cb'), `${NOT_RE2} (invalid or unsupported Perl syntax: (?!)`],
    [regex('https://a\\.example/(?<=e/)cb'), `${NOT_RE2} (invalid named capture: (?<=e/)cb)`],
    [regex(`https://a\\.example/${'c'.repeat(501 - 19)}`), 'must be at most 500 characters'],
    // Counted repetitions are unrolled: refused before compiling when they add up past the cap ...
    [regex('https://a\\.example/.{0,600}.{0,600}'), TOO_COMPLEX],
    [regex('https://a\\.example/.{1001}'), TOO_COMPLEX],
    // ... else once compiled (nested counts multiply; each [a-z]{1,63} is 126 instructions).
    [regex('https://a\\.example/.{0,600}'), TOO_COMPLEX],
    [regex('https://(?:(?:[a-z]{0,9}\\.){0,9}){0,9}example/cb'), TOO_COMPLEX],
    [regex(`https://${'[a-z]{1,63}'.repeat(8)}\\.example/cb`), TOO_COMPLEX],
  ])('refuses %j: %s', (entry, problem) => {
    expect(redirectUriEntryProblem(entry)).toBe(problem);
  });
});

// The zones the validating resolver's own box serves (validating-resolver.ts), as zone files: `test` (unsigned,
// where the CAA climb ends), `signed.test` (signed; the resolver trusts its DS) and `bogus.test` (signed; the
// resolver's trust anchor matches none of its keys). Plain strings: the workerd tests read the same names.

const SOA = '@ 300 IN SOA ns.test. hostmaster.test. 1 10800 3600 604800 300\n@ 300 IN NS ns.test.'

export const FIXTURE_ZONES = {
  test: SOA,
  'signed.test': [
    SOA,
    'www 300 IN A 127.0.0.1',
    'allowed 300 IN A 127.0.0.1',
    'allowed 300 IN CAA 0 issue "letsencrypt.org"',
    'allowed 300 IN CAA 0 issue "pebble.letsencrypt.org"',
    'forbidden 300 IN A 127.0.0.1',
    'forbidden 300 IN CAA 0 issue "sectigo.com"',
    'sub 300 IN CAA 0 issue "sectigo.com"',
    'www.sub 300 IN A 127.0.0.1',
    'critical 300 IN A 127.0.0.1',
    'critical 300 IN CAA 128 tbs "unknown"',
    'critical 300 IN CAA 0 issue "letsencrypt.org"',
    'alias 300 IN CNAME forbidden.signed.test.',
    'fixme 300 IN A 127.0.0.1',
    'fixme 300 IN CAA 0 issue "sectigo.com"',
  ].join('\n'),
  'bogus.test': [SOA, 'www 300 IN A 127.0.0.1', 'www 300 IN CAA 0 issue "sectigo.com"'].join('\n'),
} as const

/** The zones signed with `pdnsutil secure-zone`; the resolver gets a trust anchor for each. */
export const SIGNED_ZONES = ['signed.test', 'bogus.test'] as const

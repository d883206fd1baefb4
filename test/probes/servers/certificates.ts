import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** A self-signed leaf certificate and its key, in PEM, with the notAfter it was made with. */
export interface TestCertificate {
  cert: string
  key: string
  notAfter: Date
}

// openssl's `ca` is the one tool in Debian's openssl 3.0 that takes explicit start and end dates (req -x509 only
// takes a positive -days), which the expired certificate needs.
const CA_CONFIG = `[ca]
default_ca = test
[test]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = anything
unique_subject = no
[anything]
commonName = supplied
`

const KEY_OPTIONS = {
  ec: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  rsa: ['-newkey', 'rsa:2048'],
}

/** `YYYYMMDDHHMMSSZ`, the date form `openssl ca -startdate/-enddate` reads. */
const opensslDate = (date: Date) => `${date.toISOString().slice(0, 19).replace(/[-T:]/g, '')}Z`

/**
 * Makes a certificate for `localhost` valid from `notBefore` to `notAfter` in `dir` (a fresh folder), signed by
 * its own key. Whole seconds only: X.509 times carry no milliseconds.
 */
export function makeCertificate(
  dir: string,
  notBefore: Date,
  notAfter: Date,
  key: keyof typeof KEY_OPTIONS,
): TestCertificate {
  mkdirSync(dir)
  writeFileSync(join(dir, 'ca.cnf'), CA_CONFIG)
  writeFileSync(join(dir, 'index.txt'), '')
  writeFileSync(join(dir, 'serial'), '01\n')
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe', timeout: 10_000 })
  run([
    'req',
    '-new',
    ...KEY_OPTIONS[key],
    '-nodes',
    '-keyout',
    'key.pem',
    '-out',
    'req.csr',
    '-subj',
    '/CN=localhost',
  ])
  run([
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-selfsign',
    '-keyfile',
    'key.pem',
    '-in',
    'req.csr',
    '-out',
    'cert.pem',
    '-notext',
    '-startdate',
    opensslDate(notBefore),
    '-enddate',
    opensslDate(notAfter),
  ])
  return {
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    notAfter: new Date(Math.floor(notAfter.getTime() / 1000) * 1000),
  }
}

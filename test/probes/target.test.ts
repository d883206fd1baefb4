import { describe, expect, it } from 'vitest'
import { normalizeTarget } from '../../src/probes/checks/target'
import type { ProbeType } from '../../src/probes/config'
import { AppError } from '../../src/rpc/errors'

// `target` is the address a probe checks (a URL, host:port, a DNS name, a host) or a heartbeat's label; the
// knobs live in `config`. Each row: type, input, then the stored form or the 400's message on `target`.

const PROD = { ENVIRONMENT: 'production' }
const DEV = { ENVIRONMENT: 'development' }

type Row = [ProbeType, string, string]

function problem(env: { ENVIRONMENT: string }, type: ProbeType, target: string): string | null {
  try {
    normalizeTarget(env, type, target)
    return null
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    expect(error.code).toBe('validation_failed')
    expect(error.extra.issues?.map((issue) => issue.path)).toEqual(['target'])
    return error.extra.issues?.[0]?.message ?? ''
  }
}

const LOOPBACK = 'must not point at a loopback or private address in production'
const HOST_PORT = 'must be host:port (an IPv6 address in brackets) with a port from 1 to 65535'
const HOST = 'must be a host or host:port (an IPv6 address in brackets) with a port from 1 to 65535'
const DNS_NAME =
  'must be a DNS name: labels of letters, digits, hyphens and underscores, at most 253 characters'

describe('normalizeTarget', () => {
  const accepted: Row[] = [
    ['http', 'https://Example.COM/health?x=1', 'https://example.com/health?x=1'],
    ['http', 'https://example.com', 'https://example.com/'],
    ['tcp', 'DB.example.com:5432', 'db.example.com:5432'],
    ['tcp', '1.1.1.1:53', '1.1.1.1:53'],
    ['tcp', '[2606:4700:0:0::1]:443', '[2606:4700::1]:443'],
    ['tcp', 'example.com.:22', 'example.com:22'],
    ['dns', 'Example.COM.', 'example.com'],
    ['dns', '_dmarc.example.com', '_dmarc.example.com'],
    ['cert', 'Example.com', 'example.com'],
    ['cert', 'example.com:443', 'example.com'],
    ['cert', 'example.com:8443', 'example.com:8443'],
    ['cert', '[2606:4700::1]:8443', '[2606:4700::1]:8443'],
    ['heartbeat', '  nightly backup  ', 'nightly backup'],
  ]
  it.each(accepted)('should store a %s target %j as %j in production', (type, input, stored) => {
    expect(normalizeTarget(PROD, type, input)).toBe(stored)
  })

  const refusedInProduction: Row[] = [
    ['http', 'http://example.com/', 'must use https in production'],
    ['http', 'https://127.0.0.1/', LOOPBACK],
    ['http', 'https://localhost:8080/', LOOPBACK],
    ['tcp', '127.0.0.1:22', LOOPBACK],
    ['tcp', '0x7f.1:22', LOOPBACK],
    ['tcp', '10.1.2.3:5432', LOOPBACK],
    ['tcp', '[::1]:22', LOOPBACK],
    ['tcp', 'localhost:22', LOOPBACK],
    ['tcp', 'db:5432', 'must not use a single-label host name in production'],
    [
      'tcp',
      'db.internal:5432',
      'must not use a host name under .internal, which only a local network resolves, in production',
    ],
    ['cert', '192.168.1.1', LOOPBACK],
    ['cert', 'localhost:8443', LOOPBACK],
  ]
  it.each(refusedInProduction)('should refuse a %s target %j in production: %s', (type, input, message) => {
    expect(problem(PROD, type, input)).toBe(message)
  })

  const allowedInDevelopment: Row[] = [
    ['http', 'http://127.0.0.1:8080/up', 'http://127.0.0.1:8080/up'],
    ['tcp', '127.0.0.1:22', '127.0.0.1:22'],
    ['tcp', 'localhost:22', 'localhost:22'],
    ['cert', 'localhost:8443', 'localhost:8443'],
    ['cert', '[::1]:8443', '[::1]:8443'],
  ]
  it.each(allowedInDevelopment)('should store a %s target %j as %j in development', (type, input, stored) => {
    expect(normalizeTarget(DEV, type, input)).toBe(stored)
  })

  const invalid: Row[] = [
    ['http', 'example.com/health', 'must be an absolute http or https URL'],
    ['http', 'ftp://example.com/', 'must be an http or https URL'],
    ['http', 'https://user:pass@example.com/', 'must not carry credentials'],
    ['tcp', 'example.com', HOST_PORT],
    ['tcp', 'example.com:0', HOST_PORT],
    ['tcp', 'example.com:65536', HOST_PORT],
    ['tcp', 'example.com:ssh', HOST_PORT],
    ['tcp', '2606:4700::1:443', HOST_PORT],
    ['tcp', 'exa mple.com:22', HOST_PORT],
    ['tcp', 'example.com:22/path', HOST_PORT],
    ['tcp', 'bad..name.com:22', HOST_PORT],
    ['tcp', '[not-v6]:22', HOST_PORT],
    ['dns', 'bad..name', DNS_NAME],
    ['dns', 'a b.example.com', DNS_NAME],
    ['dns', `${'a'.repeat(64)}.example.com`, DNS_NAME],
    ['dns', '192.0.2.1', 'must be a DNS name, not an address'],
    ['cert', 'https://example.com/', HOST],
    ['cert', 'example.com:0', HOST],
    ['heartbeat', 'two\nlines', 'must be one line without control characters'],
    ['heartbeat', '   ', 'must hold 1 to 200 characters'],
    ['heartbeat', 'x'.repeat(201), 'must hold 1 to 200 characters'],
  ]
  it.each(invalid)('should refuse a %s target %j even in development: %s', (type, input, message) => {
    expect(problem(DEV, type, input)).toBe(message)
  })
})

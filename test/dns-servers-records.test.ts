import { describe, expect, it } from 'vitest'
import type { LiveBox } from '../src/dns-servers/nameservers/box-clients'
import { rejectedRecordField } from '../src/dns-servers/records/records'
import { canonicalIpv6, checkRecordSet, cnameConflict } from '../src/dns-servers/records/validation'
import { type BoxOutcome, refusal } from '../src/dns-servers/sync/fan-out'
import { rrsetChanges } from '../src/dns-servers/zones/diff'
import { powerDnsClient } from '../src/outside/powerdns'
import { fromContent, toContent } from '../src/outside/powerdns-content'
import { unquoteTxt } from '../src/outside/txt-strings'

describe('canonicalIpv6', () => {
  it('should write addresses as RFC 5952 text and refuse what is not IPv6', () => {
    expect(canonicalIpv6('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1')
    expect(canonicalIpv6('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1')
    expect(canonicalIpv6('::')).toBe('::')
    expect(canonicalIpv6('::ffff:192.0.2.1')).toBe('::ffff:c000:201')
    expect(canonicalIpv6('2001:db8::1::2')).toBeNull()
    expect(canonicalIpv6('192.0.2.1')).toBeNull()
    expect(canonicalIpv6('2001:db8:0:0:0:0:0:0:1')).toBeNull()
  })
})

describe('checkRecordSet', () => {
  const zone = 'example.test'

  it('should normalise names, MX and AAAA values', () => {
    expect(
      checkRecordSet(zone, {
        name: 'Mail.Example.Test.',
        type: 'MX',
        ttl: 60,
        values: ['010  MX1.Example.test.'],
      }),
    ).toEqual({
      ok: true,
      value: { name: 'mail.example.test', type: 'MX', ttl: 60, values: ['10 mx1.example.test'] },
    })
    expect(
      checkRecordSet(zone, { name: '*.example.test', type: 'AAAA', ttl: 60, values: ['2001:DB8::0:1'] }),
    ).toMatchObject({
      ok: true,
      value: { name: '*.example.test', values: ['2001:db8::1'] },
    })
    expect(
      checkRecordSet(zone, { name: 'example.test', type: 'MX', ttl: 60, values: ['0 .'] }),
    ).toMatchObject({
      ok: true,
      value: { values: ['0 .'] },
    })
  })

  it('should refuse a name that only ends like the zone', () => {
    expect(
      checkRecordSet(zone, { name: 'badexample.test', type: 'A', ttl: 60, values: ['192.0.2.1'] }),
    ).toMatchObject({
      ok: false,
      issue: { path: 'name' },
    })
  })
})

describe('cnameConflict', () => {
  const cname = { name: 'www.example.test', type: 'CNAME', ttl: 60, values: ['x.example.test'] }
  const a = { name: 'www.example.test', type: 'A', ttl: 60, values: ['192.0.2.1'] }
  it('should let a CNAME replace a CNAME and refuse mixing it with other data', () => {
    expect(cnameConflict(cname, ['CNAME'])).toBeNull()
    expect(cnameConflict(cname, ['A', 'TXT'])).toMatchObject({ path: 'type' })
    expect(cnameConflict(a, ['CNAME'])).toMatchObject({ path: 'type' })
    expect(cnameConflict(a, ['A', 'TXT'])).toBeNull()
  })
})

describe('PowerDNS content', () => {
  it('should quote TXT with escapes and read it back unchanged', () => {
    const value = 'say "hi" \\ bye'
    expect(toContent('TXT', value)).toBe('"say \\"hi\\" \\\\ bye"')
    expect(fromContent('TXT', toContent('TXT', value))).toBe(value)
    expect(unquoteTxt('"caf\\195\\169" "!"')).toBe('café!')
  })

  it('should split long TXT into strings of at most 255 UTF-8 bytes, never inside a character', () => {
    const value = `${'a'.repeat(254)}😀${'é'.repeat(200)}`
    const content = toContent('TXT', value)
    const strings = [...content.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? '')
    expect(strings.join('')).toBe(value)
    expect(strings.map((chunk) => new TextEncoder().encode(chunk).length)).toEqual([254, 254, 150])
    // A lone surrogate (half a character) would not survive a UTF-8 round trip.
    for (const chunk of strings) expect(new TextDecoder().decode(new TextEncoder().encode(chunk))).toBe(chunk)
    expect(fromContent('TXT', content)).toBe(value)
  })

  it('should make CNAME and MX targets absolute and bare them again', () => {
    expect(toContent('CNAME', 'a.example.test')).toBe('a.example.test.')
    expect(toContent('MX', '10 mx.example.test')).toBe('10 mx.example.test.')
    expect(fromContent('MX', '10 mx.example.test.')).toBe('10 mx.example.test')
    expect(fromContent('SOA', 'ns1. hostmaster. 1 2 3 4 5')).toBe('ns1. hostmaster. 1 2 3 4 5')
  })
})

describe('rrsetChanges', () => {
  const soa = (serial: number) => ({
    name: 'z.test.',
    type: 'SOA',
    ttl: 3600,
    records: [{ content: `ns1. h. ${serial} 1 1 1 1`, disabled: false }],
  })
  const a = (ip: string, ttl = 60) => ({
    name: 'a.z.test.',
    type: 'A',
    ttl,
    records: [{ content: ip, disabled: false }],
  })
  const txt = { name: 't.z.test.', type: 'TXT', ttl: 60, records: [{ content: '"x"', disabled: false }] }

  it('should replace what differs, delete extras and never touch the SOA', () => {
    expect(rrsetChanges([soa(1), a('192.0.2.1')], [soa(2), a('192.0.2.1')])).toEqual([])
    expect(rrsetChanges([soa(1), a('192.0.2.2')], [soa(2), a('192.0.2.1'), txt])).toEqual([
      {
        name: 'a.z.test.',
        type: 'A',
        changetype: 'REPLACE',
        ttl: 60,
        records: [{ content: '192.0.2.2', disabled: false }],
      },
      { name: 't.z.test.', type: 'TXT', changetype: 'DELETE' },
    ])
    expect(rrsetChanges([a('192.0.2.1', 300)], [a('192.0.2.1', 60)])).toHaveLength(1)
  })
})

describe('refusal', () => {
  const box = (state: 'synced' | 'pending' | 'failed', recordsCurrent = state === 'synced'): LiveBox => ({
    nodeId: state,
    name: state,
    hostname: `${state}.test`,
    state,
    recordsCurrent,
    attempts: 0,
    client: powerDnsClient({ apiUrl: 'https://unused.test', apiKey: 'k', serverId: 'localhost' }),
  })
  const outcome = (b: LiveBox, error: string | null, rejected = false): BoxOutcome => ({
    box: b,
    error,
    rejected,
  })

  it('should blame the data only when every box with current records refused it, naming the field', () => {
    const refused = refusal(
      [outcome(box('synced'), 'PowerDNS answered 422: bad', true), outcome(box('failed'), 'down')],
      rejectedRecordField,
    )
    expect(refused.code).toBe('validation_failed')
    expect(refused.extra.issues).toEqual([{ path: 'values', message: 'PowerDNS answered 422: bad' }])
    const partly = refusal(
      [outcome(box('synced'), 'PowerDNS answered 422: bad', true), outcome(box('synced'), 'down')],
      rejectedRecordField,
    )
    expect(partly.code).toBe('upstream_failed')
    expect(refusal([outcome(box('synced'), 'bad', true)], null).code).toBe('upstream_failed')
  })

  it('should name type when PowerDNS refuses a CNAME beside other data, in either order', () => {
    for (const type of ['CNAME', 'TXT']) {
      const error = `PowerDNS answered 422: RRset www.z.test. IN ${type}: Conflicts with pre-existing RRset`
      const refused = refusal([outcome(box('synced'), error, true)], rejectedRecordField)
      expect(refused.extra.issues, type).toEqual([{ path: 'type', message: error }])
    }
  })

  it('should say which boxes that were behind applied a change no up-to-date box took', () => {
    const refused = refusal(
      [outcome(box('synced'), 'did not answer'), outcome(box('failed'), null)],
      rejectedRecordField,
    )
    expect(refused.code).toBe('upstream_failed')
    expect(refused.detail).toContain('synced.test: did not answer')
    expect(refused.detail).toContain('failed.test applied it')
  })
})

import { beforeEach, describe, expect, it } from 'vitest'
import { rejectedRecordField } from '../../src/dns-servers/records/records'
import { PowerDnsError, powerDnsClient } from '../../src/outside/powerdns'
import { siteWithToken } from '../custom-hostnames/fixture'
import { dsFor } from '../fakes/dnssec'
import { type Caller, call, ORIGIN, ok, send } from '../helpers/http'
import { drainJobs } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import { captureJobs, runZoneSync, type SentJob } from './run-job'

/** Two PowerDNS boxes the contract runs against: in-memory fakes, or real pdns_server processes. */
export interface PowerDnsBoxes {
  /** The API address and key of box 0 or 1. */
  endpoint(box: number): { apiUrl: string; apiKey: string }
  stop(box: number): Promise<void>
  start(box: number): Promise<void>
  /** What `dig @box <name> <type> +short` prints, one line per record. */
  dig(box: number, name: string, type: string): Promise<string[]>
  /** Runs before each test (the fakes re-register their outbound routes). */
  prepare(): void
}

interface ZoneRow {
  id: string
  name: string
  dnssec: boolean
  boxes: { nodeId: string; state: string; lastError: string | null }[]
}

function zoneName(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}.test`
}

async function expectPowerDnsError(
  promise: Promise<unknown>,
  kind: string,
  status: number,
): Promise<PowerDnsError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(PowerDnsError)
  const failure = error as PowerDnsError
  expect({ kind: failure.kind, status: failure.status }, failure.message).toEqual({ kind, status })
  return failure
}

/**
 * The PowerDNS contract: the same tests prove the fakes honest (npm test) and the panel right against real
 * PowerDNS (npm run test:peers).
 */
export function powerDnsContract(label: string, boxes: PowerDnsBoxes): void {
  let admin: Caller
  let nodeIds: string[] = []
  let sent: SentJob[] = []

  async function enrolledBoxes(): Promise<string[]> {
    if (nodeIds.length === 2) return nodeIds
    const suffix = crypto.randomUUID().slice(0, 8)
    nodeIds = []
    for (const i of [0, 1]) {
      const row = await ok<{ id: string }>(
        'dnsServers.nameservers.enroll',
        {
          name: `ns${i + 1}-${suffix}`,
          hostname: `ns${i + 1}.panel-${suffix}.test`,
          publicIpv4: `192.0.2.${i + 1}`,
          agentUrl: `https://agent${i + 1}.panel.test`,
          agentSecret: 'agent-secret-0123456789',
          powerDns: { ...boxes.endpoint(i), serverId: 'localhost' },
        },
        admin,
      )
      nodeIds.push(row.id)
    }
    return nodeIds
  }

  async function createZone(name: string): Promise<ZoneRow> {
    await enrolledBoxes()
    return ok<ZoneRow>('dnsServers.zones.create', { name }, admin)
  }

  describe(`PowerDNS contract (${label})`, () => {
    beforeEach(async () => {
      boxes.prepare()
      sent = captureJobs()
      admin = await adminSession()
    })

    it("should map PowerDNS's plain-text and JSON errors to typed client errors", async () => {
      const endpoint = { ...boxes.endpoint(0), serverId: 'localhost' }
      const client = powerDnsClient(endpoint)
      const zone = zoneName('wire')
      await client.createZone(zone, {
        nameservers: ['ns1.wire.test'],
        soa: `ns1.wire.test. hostmaster.${zone}. 0 10800 3600 604800 3600`,
      })
      await expectPowerDnsError(client.createZone(zone, { nameservers: [], soa: 'x' }), 'conflict', 409)
      await expectPowerDnsError(client.getZone(zoneName('missing')), 'not_found', 404)
      const unauthorized = await expectPowerDnsError(
        powerDnsClient({ ...endpoint, apiKey: 'wrong-key' }).server(),
        'unauthorized',
        401,
      )
      expect(unauthorized.message).toBe('PowerDNS answered 401: Unauthorized')
      const outOfZone = await expectPowerDnsError(
        client.patchRRsets(zone, [
          {
            name: 'www.elsewhere.test.',
            type: 'A',
            changetype: 'REPLACE',
            ttl: 60,
            records: [{ content: '192.0.2.1', disabled: false }],
          },
        ]),
        'rejected',
        422,
      )
      expect(outOfZone.message).toContain('out of zone')
      const unquoted = await expectPowerDnsError(
        client.patchRRsets(zone, [
          {
            name: `t.${zone}.`,
            type: 'TXT',
            changetype: 'REPLACE',
            ttl: 60,
            records: [{ content: 'bare', disabled: false }],
          },
        ]),
        'rejected',
        422,
      )
      expect(unquoted.message).toContain('Not in expected format')
      const a = { name: `c.${zone}.`, type: 'A', changetype: 'REPLACE' as const, ttl: 60 }
      await client.patchRRsets(zone, [{ ...a, records: [{ content: '192.0.2.1', disabled: false }] }])
      const cname = await expectPowerDnsError(
        client.patchRRsets(zone, [
          { ...a, type: 'CNAME', records: [{ content: `target.${zone}.`, disabled: false }] },
        ]),
        'rejected',
        422,
      )
      expect(rejectedRecordField(cname.message), cname.message).toBe('type')
    })

    it('should create a zone on both boxes, each serving its SOA and NS', async () => {
      const name = zoneName('both')
      const zone = await createZone(name)
      expect(zone.boxes.map((b) => b.state)).toEqual(['synced', 'synced'])
      for (const i of [0, 1]) {
        const soa = await boxes.dig(i, name, 'SOA')
        expect(soa[0], `box ${i} SOA`).toMatch(/^ns1\.panel-[0-9a-f]{8}\.test\. hostmaster\./)
        expect((await boxes.dig(i, name, 'NS')).sort()).toHaveLength(2)
      }
      const detail = await ok<{ records: { type: string }[]; recordsFrom: string }>(
        'dnsServers.zones.get',
        { id: zone.id },
        admin,
      )
      expect(detail.records.map((r) => r.type).sort()).toEqual(['NS', 'SOA'])
    })

    it('should create a zone while one box is down and sync that box with the queue job once it is back', async () => {
      const [, second] = await enrolledBoxes()
      await boxes.stop(1)
      let zone: ZoneRow
      try {
        const name = zoneName('down')
        zone = await createZone(name)
        expect(zone.boxes.map((b) => b.state)).toEqual(['synced', 'failed'])
        expect(zone.boxes[1]?.lastError).toContain('did not answer')
        expect(sent).toEqual([
          { body: { type: 'dns.zone-sync', zoneId: zone.id, nodeId: second }, delaySeconds: 30 },
        ])
        // While the box is still down the job asks to be retried.
        const early = await runZoneSync(zone.id, second as string)
        expect(early).toEqual({ acked: false, retryDelay: expect.any(Number) })
      } finally {
        await boxes.start(1)
      }
      boxes.prepare()
      expect(await runZoneSync(zone.id, second as string, 2)).toEqual({ acked: true, retryDelay: null })
      const after = await ok<ZoneRow>('dnsServers.zones.get', { id: zone.id }, admin)
      expect(after.boxes.map((b) => b.state)).toEqual(['synced', 'synced'])
      expect(await boxes.dig(1, zone.name, 'SOA')).toHaveLength(1)
    })

    it('should replace a record set and serve exactly the new values, wildcards included', async () => {
      const zone = await createZone(zoneName('upsert'))
      const www = `www.${zone.name}`
      await ok(
        'dnsServers.zones.upsertRecord',
        { id: zone.id, name: www, type: 'A', ttl: 300, values: ['192.0.2.10', '192.0.2.11'] },
        admin,
      )
      expect((await boxes.dig(0, www, 'A')).sort()).toEqual(['192.0.2.10', '192.0.2.11'])
      // The REST route the onboarding sequence names.
      const replaced = await send('/api/v1/dnsServers/zones/records/upsert', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: admin.cookie ?? '', origin: ORIGIN },
        body: JSON.stringify({ id: zone.id, name: www, type: 'A', ttl: 300, values: ['192.0.2.20'] }),
      })
      expect(replaced.status, replaced.text).toBe(200)
      for (const i of [0, 1]) expect(await boxes.dig(i, www, 'A'), `box ${i}`).toEqual(['192.0.2.20'])

      const records: [string, string, string[], string[]][] = [
        [`*.${zone.name}`, 'A', ['192.0.2.30'], ['192.0.2.30']],
        [`v6.${zone.name}`, 'AAAA', ['2001:DB8:0:0::1'], ['2001:db8::1']],
        [zone.name, 'MX', ['10 mail.example.test'], ['10 mail.example.test.']],
        [`_dmarc.${zone.name}`, 'TXT', ['v=DMARC1; p="none"'], ['"v=DMARC1; p=\\"none\\""']],
        [`alias.${zone.name}`, 'CNAME', ['target.example.test'], ['target.example.test.']],
      ]
      for (const [name, type, values, served] of records) {
        await ok('dnsServers.zones.upsertRecord', { id: zone.id, name, type, ttl: 120, values }, admin)
        const lookup = name.startsWith('*.') ? `anything.${zone.name}` : name
        expect(await boxes.dig(1, lookup, type), `${type} ${name}`).toEqual(served)
      }
      const detail = await ok<{ records: { name: string; type: string; values: string[] }[] }>(
        'dnsServers.zones.get',
        { id: zone.id },
        admin,
      )
      expect(detail.records).toContainEqual({
        name: `_dmarc.${zone.name}`,
        type: 'TXT',
        ttl: 120,
        values: ['v=DMARC1; p="none"'],
      })
      expect(detail.records).toContainEqual({
        name: `v6.${zone.name}`,
        type: 'AAAA',
        ttl: 120,
        values: ['2001:db8::1'],
      })
    })

    it('should delete a record set from every box', async () => {
      const zone = await createZone(zoneName('delete'))
      const name = `gone.${zone.name}`
      await ok(
        'dnsServers.zones.upsertRecord',
        { id: zone.id, name, type: 'TXT', ttl: 60, values: ['x'] },
        admin,
      )
      expect(await boxes.dig(0, name, 'TXT')).toEqual(['"x"'])
      await ok('dnsServers.zones.deleteRecord', { id: zone.id, name, type: 'TXT' }, admin)
      for (const i of [0, 1]) expect(await boxes.dig(i, name, 'TXT'), `box ${i}`).toEqual([])
    })

    it('should write a record to the boxes that are up and copy it to a box that missed it', async () => {
      const [, second] = await enrolledBoxes()
      const zone = await createZone(zoneName('missed'))
      const name = `late.${zone.name}`
      await boxes.stop(1)
      try {
        const write = await ok<{ boxes: { written: boolean; state: string }[] }>(
          'dnsServers.zones.upsertRecord',
          { id: zone.id, name, type: 'A', ttl: 60, values: ['192.0.2.77'] },
          admin,
        )
        expect(write.boxes.map((b) => [b.written, b.state])).toEqual([
          [true, 'synced'],
          [false, 'failed'],
        ])
        expect(sent).toEqual([
          { body: { type: 'dns.zone-sync', zoneId: zone.id, nodeId: second }, delaySeconds: 30 },
        ])
      } finally {
        await boxes.start(1)
      }
      boxes.prepare()
      expect(await boxes.dig(1, name, 'A')).toEqual([])
      expect(await runZoneSync(zone.id, second as string)).toEqual({ acked: true, retryDelay: null })
      expect(await boxes.dig(1, name, 'A')).toEqual(['192.0.2.77'])
    })

    it('should sign with one key on every box and hand out the DS of the DNSKEY they serve', async () => {
      const zone = await createZone(zoneName('signed'))
      const signed = await ok<{ dnssec: boolean; boxes: { written: boolean }[] }>(
        'dnsServers.zones.setDnssec',
        { id: zone.id, enabled: true },
        admin,
      )
      expect(signed.boxes.map((b) => b.written)).toEqual([true, true])
      const keys = [await boxes.dig(0, zone.name, 'DNSKEY'), await boxes.dig(1, zone.name, 'DNSKEY')]
      expect(keys[0]).toHaveLength(1)
      const served = (keys[0]?.[0] ?? '').replace(/\s+/g, '')
      expect((keys[1]?.[0] ?? '').replace(/\s+/g, '')).toBe(served)

      const ds = await ok<{
        ds: { digestType: number; record: string; keyTag: number }[]
        dnskeys: string[]
      }>('dnsServers.zones.getDsRecord', { id: zone.id }, admin)
      expect(ds.ds.map((d) => d.digestType).sort()).toEqual([2, 4])
      const sha256 = ds.ds.find((d) => d.digestType === 2)
      expect(sha256?.record).toBe(`${zone.name}. IN DS ${await dsFor(zone.name, keys[0]?.[0] ?? '', 2)}`)

      // Turning signing off deletes the keys; dig would still show the DNSKEY from PowerDNS's packet cache for a
      // while, so the keys are checked through the API.
      await ok('dnsServers.zones.setDnssec', { id: zone.id, enabled: false }, admin)
      for (const i of [0, 1]) {
        const client = powerDnsClient({ ...boxes.endpoint(i), serverId: 'localhost' })
        expect(await client.listCryptokeys(zone.name), `box ${i}`).toEqual([])
      }
      const off = await call('dnsServers.zones.getDsRecord', { id: zone.id }, admin)
      expect(off.status, off.text).toBe(409)
    })

    it('should take a custom hostname into a hosted zone and out again (dig sees the CNAME, then not)', async () => {
      // Custom hostnames live under a public suffix, so this zone is not under .test.
      const zone = await createZone(`${zoneName('hostnames').replace(/\.test$/, '')}.com`)
      const site = await siteWithToken(admin)
      await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [zone.name] }, admin)
      const hostname = `shop.${zone.name}`
      const registered = await ok<{ state: string; records: { value: string }[] }>(
        'customHostnames.register',
        { siteId: site.siteId, hostname },
        site.app,
      )
      expect(registered.state).toBe('pending')
      await drainJobs(sent, 'custom-hostname.')
      const target = `${registered.records[0]?.value}.`
      expect(await boxes.dig(0, hostname, 'CNAME')).toEqual([target])
      expect(await boxes.dig(1, hostname, 'CNAME')).toEqual([target])
      const status = await ok('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
      expect(status).toMatchObject({ state: 'active' })
      await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
      await drainJobs(sent, 'custom-hostname.')
      expect(await boxes.dig(0, hostname, 'CNAME')).toEqual([])
      expect(await boxes.dig(1, hostname, 'CNAME')).toEqual([])
    })
  })
}

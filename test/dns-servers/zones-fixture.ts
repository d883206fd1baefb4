import { beforeEach } from 'vitest'
import { FakePowerDns } from '../fakes/powerdns'
import { type Caller, ok } from '../helpers/http'
import { outboundRequests } from '../helpers/outbound'
import { adminSession } from '../helpers/principals'
import { enrollBoxes } from './enroll'
import { captureJobs, type SentJob } from './run-job'

// For test/dns-servers-zones-*.test.ts. Importing this module registers their beforeEach: fresh fake boxes,
// the captured JOBS queue, an admin session, and the two boxes enrolled once per file.

interface ZoneBox {
  nodeId: string
  state: string
  lastError: string | null
}
export interface Zone {
  id: string
  name: string
  dnssec: boolean
  boxes: ZoneBox[]
}
export interface RecordSet {
  name: string
  type: string
  ttl: number
  values: string[]
}
export interface ZoneDetail extends Zone {
  records: RecordSet[] | null
  recordsFrom: string | null
  recordsError: string | null
}

export const boxes = [
  new FakePowerDns('https://pdns-a.zones.test', 'zones-key-a'),
  new FakePowerDns('https://pdns-b.zones.test', 'zones-key-b'),
]
export const [boxA, boxB] = boxes as [FakePowerDns, FakePowerDns]
export let admin: Caller
export let sent: SentJob[]
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  sent = captureJobs()
  admin = await adminSession()
  if (!enrolled) {
    await enrollBoxes(admin, 'zones', boxes)
    enrolled = true
  }
})

export async function newZone(label = 'zone'): Promise<Zone> {
  return ok<Zone>(
    'dnsServers.zones.create',
    { name: `${label}-${crypto.randomUUID().slice(0, 8)}.test` },
    admin,
  )
}

export async function records(zone: Zone): Promise<RecordSet[]> {
  const detail = await ok<ZoneDetail>('dnsServers.zones.get', { id: zone.id }, admin)
  return detail.records ?? []
}

export function upsertA(zone: Zone, label: string, address: string) {
  return { id: zone.id, name: `${label}.${zone.name}`, type: 'A', ttl: 60, values: [address] }
}

/** A zone whose second box missed a write and is failed. */
export async function zoneWithBoxBehind(label: string): Promise<{ zone: Zone; nodeB: string }> {
  const zone = await newZone(label)
  boxB.down = true
  await ok('dnsServers.zones.upsertRecord', upsertA(zone, 'first', '192.0.2.1'), admin)
  boxB.down = false
  return { zone, nodeB: zone.boxes[1]?.nodeId ?? 'no second box' }
}

export async function boxStates(zone: Zone): Promise<string[]> {
  return (await ok<ZoneDetail>('dnsServers.zones.get', { id: zone.id }, admin)).boxes.map((b) => b.state)
}

export function isCryptokeysRead(request: Request): boolean {
  return request.method === 'GET' && new URL(request.url).pathname.endsWith('/cryptokeys')
}

export function patches(): number {
  return outboundRequests().filter((r) => r.method === 'PATCH').length
}

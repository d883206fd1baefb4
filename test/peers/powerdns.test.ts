import { inject } from 'vitest'
import { type PowerDnsBoxes, powerDnsContract } from '../dns-servers/contract'

const peers = inject('peers')

async function control(method: 'GET' | 'POST', path: string): Promise<unknown> {
  const response = await fetch(`${peers.control}${path}`, { method })
  const body: unknown = await response.json()
  if (!response.ok)
    throw new Error(`peers control ${path} answered ${response.status}: ${JSON.stringify(body)}`)
  return body
}

function box(index: number) {
  const found = peers.boxes[index]
  if (!found) throw new Error(`no peer box ${index}`)
  return found
}

const boxes: PowerDnsBoxes = {
  endpoint: (index) => ({ apiUrl: box(index).apiUrl, apiKey: box(index).apiKey }),
  async stop(index) {
    await control('POST', `/stop?box=${index}`)
  },
  async start(index) {
    await control('POST', `/start?box=${index}`)
  },
  async dig(index, name, type) {
    const query = new URLSearchParams({ box: String(index), name, type })
    return (await control('GET', `/dig?${query}`)) as string[]
  },
  prepare() {},
}

powerDnsContract('real pdns_server', boxes)

import { type PowerDnsBoxes, powerDnsContract } from '../dns-servers/contract'
import { control, peers } from './peers'

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
  dig(index, name, type) {
    return control<string[]>('GET', `/dig?${new URLSearchParams({ box: String(index), name, type })}`)
  },
  prepare() {},
}

powerDnsContract('real pdns_server', boxes)

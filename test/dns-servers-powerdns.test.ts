import { type PowerDnsBoxes, powerDnsContract } from './dns-servers/contract'
import { FakePowerDns } from './fakes/powerdns'

const fakes = [
  new FakePowerDns('https://pdns-1.contract.test', 'contract-key-1'),
  new FakePowerDns('https://pdns-2.contract.test', 'contract-key-2'),
]

function fake(box: number): FakePowerDns {
  const found = fakes[box]
  if (!found) throw new Error(`no fake box ${box}`)
  return found
}

const boxes: PowerDnsBoxes = {
  endpoint: (box) => ({ apiUrl: fake(box).apiUrl, apiKey: fake(box).apiKey }),
  async stop(box) {
    fake(box).down = true
  },
  async start(box) {
    fake(box).down = false
  },
  async dig(box, name, type) {
    return fake(box).lookup(name, type)
  },
  prepare() {
    for (const box of fakes) box.install()
  },
}

powerDnsContract('in-memory fakes', boxes)

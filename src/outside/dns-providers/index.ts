import { cloudflareCapabilities, cloudflareDriver } from './provider-a-cloudflare'
import { digitalOceanCapabilities, digitalOceanDriver } from './provider-b-digitalocean'
import { hetznerCapabilities, hetznerDriver } from './provider-c-hetzner'
import { vultrCapabilities, vultrDriver } from './provider-d-vultr'
import { linodeCapabilities, linodeDriver } from './provider-e-linode'
import { asciiDnsName } from './records'
import { providerTtl } from './ttl'
import type {
  DnsCapabilities,
  DnsDriver,
  DnsDriverFactory,
  DnsDriverOptions,
  DnsProviderId,
  DnsZone,
} from './types'

export * from './types'

const FACTORIES: Record<DnsProviderId, DnsDriverFactory> = {
  provider_a: cloudflareDriver,
  provider_b: digitalOceanDriver,
  provider_c: hetznerDriver,
  provider_d: vultrDriver,
  provider_e: linodeDriver,
}

/** What each provider can do, known without a token (for driver lists and input checks). */
export const DNS_CAPABILITIES: Record<DnsProviderId, DnsCapabilities> = {
  provider_a: cloudflareCapabilities,
  provider_b: digitalOceanCapabilities,
  provider_c: hetznerCapabilities,
  provider_d: vultrCapabilities,
  provider_e: linodeCapabilities,
}

/**
 * The driver for a provider id, bound to one account's token and optional API root override. Every name reaches
 * the provider's driver in punycode and every TTL within what that provider takes.
 */
export function dnsDriver(provider: DnsProviderId, options: DnsDriverOptions): DnsDriver {
  const driver = FACTORIES[provider](options)
  const ascii = (name: string) => asciiDnsName(provider, name)
  const asciiZone = (zone: DnsZone) => ({ id: zone.id, name: ascii(zone.name) })
  return {
    ...driver,
    findZone: async (hostname) => driver.findZone(ascii(hostname)),
    listRecords: async (zone, name) => driver.listRecords(asciiZone(zone), ascii(name)),
    createRecord: async (zone, record) =>
      driver.createRecord(asciiZone(zone), {
        ...record,
        name: ascii(record.name),
        content: record.type === 'CNAME' ? ascii(record.content) : record.content,
        ttl: providerTtl(provider, record.ttl),
      }),
  }
}

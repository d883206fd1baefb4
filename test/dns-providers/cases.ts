import { expect } from 'vitest'
import { DnsProviderError, type DnsProviderId } from '../../src/outside/dns-providers'
import type { DnsFake, FakeOptions } from '../fakes/dns-fake'
import { cloudflareFake } from '../fakes/provider-a-cloudflare'
import { digitalOceanFake } from '../fakes/provider-b-digitalocean'
import { hetznerFake } from '../fakes/provider-c-hetzner'
import { vultrFake } from '../fakes/provider-d-vultr'
import { linodeFake } from '../fakes/provider-e-linode'
import { fakeOrigin } from '../helpers/outbound'

export interface Case {
  provider: DnsProviderId
  makeFake(options?: FakeOptions): DnsFake
  defaultBase: string
  /** The name the provider's API is sent for `fqdn` in `zone`. */
  wireName(fqdn: string, zone: string): string
  /** The content the provider's API is sent for a CNAME to `target`. */
  wireCname(target: string): string
  /** The content the provider's API is sent for a TXT record holding `text`. */
  wireTxt(text: string): string
  /** The TTLs the provider's API is sent when 5 s and ten million seconds are asked for. */
  ttlBounds: [number, number]
  /** How the provider may write a CNAME target at the apex of `zone`. */
  wireApexTarget(zone: string): string
  /** The `name` filter a record listing for `www.example.test` sends, or null where the API has none. */
  nameFilter: string | null
}

const quoted = (text: string) => `"${text}"`
const raw = (text: string) => text

const relative = (apex: string) => (fqdn: string, zone: string) =>
  fqdn === zone ? apex : fqdn.slice(0, -(zone.length + 1))

export const cases: Case[] = [
  {
    provider: 'provider_a',
    makeFake: cloudflareFake,
    defaultBase: 'https://api.cloudflare.com/client/v4',
    wireName: (fqdn) => fqdn,
    wireCname: (target) => target,
    wireTxt: quoted,
    ttlBounds: [60, 86_400],
    wireApexTarget: (zone) => zone,
    nameFilter: 'www.example.test',
  },
  {
    provider: 'provider_b',
    makeFake: digitalOceanFake,
    defaultBase: 'https://api.digitalocean.com/v2',
    wireName: relative('@'),
    wireCname: (target) => `${target}.`,
    wireTxt: raw,
    ttlBounds: [30, 10_000_000],
    wireApexTarget: () => '@',
    nameFilter: 'www.example.test',
  },
  {
    provider: 'provider_c',
    makeFake: hetznerFake,
    defaultBase: 'https://api.hetzner.cloud/v1',
    wireName: relative('@'),
    wireCname: (target) => `${target}.`,
    wireTxt: quoted,
    ttlBounds: [60, 10_000_000],
    wireApexTarget: () => '@',
    nameFilter: 'www',
  },
  {
    provider: 'provider_d',
    makeFake: vultrFake,
    defaultBase: 'https://api.vultr.com/v2',
    wireName: relative(''),
    wireCname: (target) => target,
    wireTxt: quoted,
    ttlBounds: [5, 10_000_000],
    wireApexTarget: (zone) => zone,
    nameFilter: null,
  },
  {
    provider: 'provider_e',
    makeFake: linodeFake,
    defaultBase: 'https://api.linode.com/v4',
    wireName: relative(''),
    wireCname: (target) => target,
    wireTxt: raw,
    ttlBounds: [30, 2_419_200],
    wireApexTarget: (zone) => zone,
    nameFilter: null,
  },
]

export function installed(c: Case, options?: FakeOptions): DnsFake {
  const fake = c.makeFake(options)
  fakeOrigin(fake.origin, fake.handle)
  return fake
}

export async function providerError(promise: Promise<unknown>): Promise<DnsProviderError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(DnsProviderError)
  return error as DnsProviderError
}

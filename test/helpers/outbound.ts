import { env } from 'cloudflare:workers'
import { afterEach, vi } from 'vitest'
import type { DnsLookupType } from '../../src/outside/doh'
import { dohAnswer, dohQuestion } from '../fakes/doh-wire'

/** A fake counterpart: receives the Worker's outgoing request, answers in the counterpart's real wire format. */
export type FakeHandler = (request: Request) => Response | Promise<Response>

const fakes = new Map<string, FakeHandler>()
const seen: Request[] = []
let installed = false

/** Where the host of every faked counterpart resolves: public addresses, which the production rule allows. */
export const COUNTERPART_ADDRESSES: Readonly<Record<'A' | 'AAAA', string>> = {
  A: '104.16.0.1',
  AAAA: '2606:4700::6810:1',
}

/** The public address a faked counterpart's host resolves to for an A or AAAA query, or null for other names. */
export function counterpartAddresses(name: string, type: DnsLookupType): string[] | null {
  if (type !== 'A' && type !== 'AAAA') return null
  const host = name.replace(/\.$/, '').toLowerCase()
  for (const origin of fakes.keys())
    if (new URL(origin).hostname === host) return [COUNTERPART_ADDRESSES[type]]
  return null
}

function resolverOrigin(): string {
  return new URL((env as unknown as { DOH_RESOLVER_URL: string }).DOH_RESOLVER_URL).origin
}

/**
 * Routes the Worker's outgoing fetches for `origin` (e.g. `https://api.cloudflare.com`) to a fake. Any fetch to
 * an origin without a fake fails like a network error, so an unexpected outbound request cannot pass silently.
 * Fakes are cleared after each test.
 */
export function fakeOrigin(origin: string, handler: FakeHandler): void {
  interceptOutbound()
  fakes.set(new URL(origin).origin, handler)
}

/**
 * Starts capturing the Worker's outgoing fetches (none is let through to the network). While no test installs
 * a DoH fake, the resolver's origin answers the send-time check's A and AAAA queries for faked counterparts'
 * hosts itself, and those lookups are not listed among the requests the Worker made.
 */
export function interceptOutbound(): void {
  if (!installed) {
    installed = true
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init)
      const origin = new URL(request.url).origin
      const fake = fakes.get(origin)
      if (!fake && origin === resolverOrigin()) {
        const question = dohQuestion(request)
        const addresses = question && counterpartAddresses(question.name, question.type)
        if (question && addresses) return dohAnswer(question.name, question.type, 0, addresses)
      }
      seen.push(request.clone())
      if (!fake) throw new TypeError(`network error: no fake answers ${request.method} ${request.url}`)
      return fake(request)
    })
  }
}

/** Every outgoing request the Worker made in this test, in order. */
export function outboundRequests(): readonly Request[] {
  return seen
}

afterEach(() => {
  fakes.clear()
  seen.length = 0
})

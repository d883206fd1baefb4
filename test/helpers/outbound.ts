import { afterEach, vi } from 'vitest'

/** A fake counterpart: receives the Worker's outgoing request, answers in the counterpart's real wire format. */
export type FakeHandler = (request: Request) => Response | Promise<Response>

const fakes = new Map<string, FakeHandler>()
const seen: Request[] = []
let installed = false

/**
 * Routes the Worker's outgoing fetches for `origin` (e.g. `https://api.cloudflare.com`) to a fake. Any fetch to
 * an origin without a fake fails like a network error, so an unexpected outbound request cannot pass silently.
 * Fakes are cleared after each test.
 */
export function fakeOrigin(origin: string, handler: FakeHandler): void {
  interceptOutbound()
  fakes.set(new URL(origin).origin, handler)
}

/** Starts capturing the Worker's outgoing fetches (none is let through to the network). */
export function interceptOutbound(): void {
  if (!installed) {
    installed = true
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = new Request(input, init)
      seen.push(request.clone())
      const fake = fakes.get(new URL(request.url).origin)
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

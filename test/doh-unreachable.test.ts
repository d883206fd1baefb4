import { describe, expect, inject, it } from 'vitest'
import { DohError, dohLookup } from '../src/outside/doh'

// A resolver the panel cannot reach says why in words, not the runtime's "internal error; reference = …".
// Real connections, no fetch fake: a closed loopback port and a name that does not resolve.

const servers = inject('probeServers')

async function failure(resolverUrl: string): Promise<string> {
  const error = await dohLookup(resolverUrl, 'example.com', 'A').then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(DohError)
  return (error as DohError).message
}

describe('dohLookup with an unreachable resolver', () => {
  it('should say a closed port refused the connection', async () => {
    const origin = `http://127.0.0.1:${servers.refused}`
    expect(await failure(`${origin}/dns-query`)).toBe(
      `the DNS resolver ${origin} did not answer: 127.0.0.1:${servers.refused} refused the connection (nothing listens there)`,
    )
  })

  it('should say a resolver whose name does not resolve cannot be connected to', async () => {
    const message = await failure('https://doh.no-such-resolver.invalid/dns-query')
    expect(message).toBe(
      'the DNS resolver https://doh.no-such-resolver.invalid did not answer: no connection to doh.no-such-resolver.invalid:443 could be made: the name does not resolve from the panel, or nothing there is reachable',
    )
    expect(message).not.toMatch(/internal error|reference =/)
  })

  it('should say a resolver that does not speak TLS failed the handshake', async () => {
    expect(await failure(`https://127.0.0.1:${servers.banner}/dns-query`)).toMatch(
      new RegExp(
        `did not answer: 127\\.0\\.0\\.1:${servers.banner} accepts connections, but the TLS handshake failed`,
      ),
    )
  })
})

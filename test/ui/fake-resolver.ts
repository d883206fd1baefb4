import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dohAnswer, dohQuestion } from '../fakes/doh-wire.ts'

// The panel's DoH resolver in the UI tests (RFC 8484 GET on 127.0.0.1): every name but an _acme-challenge one
// points at the fake edge, so a domain attached to a site on a node whose dnsTarget is FAKE_EDGE_TARGET passes DNS verify at once.

/** The dnsTarget to give UI-test nodes: every name is a CNAME to it. */
export const FAKE_EDGE_TARGET = 'edge.ui-test.example'
/** The address every name (the target included) resolves to. */
export const FAKE_EDGE_ADDRESS = '203.0.113.10'

function answerFor(name: string, type: string): string[] {
  // No one left an ACME challenge record behind (the diagnosis would call it stale).
  if (name.toLowerCase().startsWith('_acme-challenge.')) return []
  if (type === 'A') return [FAKE_EDGE_ADDRESS]
  if (type === 'CNAME' && name.toLowerCase() !== FAKE_EDGE_TARGET) return [FAKE_EDGE_TARGET]
  return []
}

/** Starts the resolver on a free 127.0.0.1 port; resolves with its DoH URL and a function that stops it. */
export async function startFakeResolver(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    void (async () => {
      const question = dohQuestion(new Request(new URL(request.url ?? '/', 'http://resolver')))
      if (!question) return response.writeHead(400).end('no dns parameter')
      const answer = dohAnswer(question.name, question.type, 0, answerFor(question.name, question.type))
      const body = Buffer.from(await answer.arrayBuffer())
      response.writeHead(200, { 'content-type': answer.headers.get('content-type') ?? '' }).end(body)
    })().catch((error: unknown) => response.writeHead(500).end(String(error)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/dns-query`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

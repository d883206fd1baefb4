import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer as createTlsServer, type SecureVersion } from 'node:tls'
import type { TestProject } from 'vitest/node'
import { startBlackhole } from './blackhole'
import { makeCertificate, type TestCertificate } from './certificates'

// Runs in Node before the workerd tests: the loopback servers the tcp and cert checks are tested against, all on
// 127.0.0.1, all closed on teardown (also when a later step fails).

/** What the probe check tests see of the servers (ports on 127.0.0.1, notAfter as ISO strings). */
export interface ProbeServers {
  /** Accepts, writes an SSH-style banner and hangs up: open for tcp, not TLS for cert. */
  banner: number
  /** Was free a moment ago and nothing listens on it: connects are refused. */
  refused: number
  /** Never accepts (full backlog): connects hang until the check's own deadline. */
  blackhole: number
  /** TLS servers with a self-signed `localhost` certificate each. */
  tls: Record<'valid' | 'nearExpiry' | 'expired' | 'tls13Only', { port: number; notAfter: string }>
}

const DAY = 86_400_000

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const address = server.address()
  if (typeof address !== 'object' || !address) throw new Error('the test server has no port')
  return address.port
}

async function close(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = mkdtempSync(join(tmpdir(), 'panel-probe-servers-'))
  const stops: (() => Promise<void> | void)[] = []
  const teardown = async () => {
    for (const stop of stops.reverse()) await stop()
    rmSync(root, { recursive: true, force: true })
  }
  try {
    const serve = async (server: Server) => {
      const sockets = new Set<{ destroy(): void }>()
      server.on('connection', (socket) => {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => {})
      })
      stops.push(async () => {
        for (const socket of sockets) socket.destroy()
        await close(server)
      })
      return listen(server)
    }
    const banner = await serve(createServer((socket) => socket.end('SSH-2.0-probe-test\r\n')))
    const refusedServer = createServer()
    const refused = await listen(refusedServer)
    await close(refusedServer)
    const blackhole = await startBlackhole()
    stops.push(() => blackhole.stop())

    const now = Date.now()
    const tlsServer = async (certificate: TestCertificate, minVersion: SecureVersion) => {
      const server = createTlsServer({ cert: certificate.cert, key: certificate.key, minVersion }, (socket) =>
        socket.end(),
      )
      server.on('tlsClientError', () => {})
      return { port: await serve(server), notAfter: certificate.notAfter.toISOString() }
    }
    // 2051 is past 2049, so the valid certificate's notAfter is a GeneralizedTime; the others are UTCTimes.
    const valid = makeCertificate(
      join(root, 'valid'),
      new Date(now - DAY),
      new Date('2051-06-01T12:00:00Z'),
      'ec',
    )
    const near = makeCertificate(
      join(root, 'near'),
      new Date(now - DAY),
      new Date(now + 3 * DAY + 3_600_000),
      'ec',
    )
    const expired = makeCertificate(
      join(root, 'expired'),
      new Date(now - 90 * DAY),
      new Date(now - 2 * DAY - 3_600_000),
      'rsa',
    )
    const servers: ProbeServers = {
      banner,
      refused,
      blackhole: blackhole.port,
      tls: {
        valid: await tlsServer(valid, 'TLSv1.2'),
        nearExpiry: await tlsServer(near, 'TLSv1.2'),
        expired: await tlsServer(expired, 'TLSv1.2'),
        tls13Only: await tlsServer(valid, 'TLSv1.3'),
      },
    }
    project.provide('probeServers', servers)
  } catch (error) {
    await teardown()
    throw error
  }
  return teardown
}

declare module 'vitest' {
  export interface ProvidedContext {
    probeServers: ProbeServers
  }
}

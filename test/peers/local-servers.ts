import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import { makeCertificate } from '../probes/servers/certificates'

// The workloads behind the edge in the peers suite: a site (HTTP), a TCP echo service and a TLS 1.3-only server,
// on every IPv4 address of the machine: 127.0.0.1 for the edge's routes, and the machine's own address for checks
// from the node, whose destination rule keeps them off the node's loopback.

/** The site every http route of the suite targets: it answers `site <host>` so a test sees which name arrived. */
export async function startSite(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end(`site ${req.headers.host ?? ''}`)
  })
  return { port: await listen(server), close: () => close(server) }
}

/** A TCP service that sends back every byte it receives, for raw routes. */
export async function startEcho(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server = createTcpServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
    socket.pipe(socket)
  })
  return {
    port: await listen(server),
    close: () => {
      for (const socket of sockets) socket.destroy()
      return close(server)
    },
  }
}

const DAY = 86_400_000

/**
 * A TLS server that speaks TLS 1.3 only (a self-signed certificate made in `dir`, valid 90 days): the edge's
 * TLS 1.2 reader cannot read its certificate, a node's agent can.
 */
export async function startTls13Only(
  dir: string,
): Promise<{ port: number; notAfter: string; close(): Promise<void> }> {
  const now = Date.now()
  const certificate = makeCertificate(dir, new Date(now - DAY), new Date(now + 90 * DAY), 'ec')
  const server = createTlsServer(
    { cert: certificate.cert, key: certificate.key, minVersion: 'TLSv1.3' },
    (socket) => socket.end(),
  )
  server.on('tlsClientError', () => {})
  return {
    port: await listen(server),
    notAfter: certificate.notAfter.toISOString(),
    close: () => close(server),
  }
}

function listen(server: HttpServer | TcpServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '0.0.0.0', () => {
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : 0)
    })
  })
}

function close(server: HttpServer | TcpServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    if ('closeAllConnections' in server) server.closeAllConnections()
  })
}

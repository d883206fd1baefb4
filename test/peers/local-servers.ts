import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net'

// The workloads behind the edge in the peers suite: a site (HTTP) and a TCP echo service, both on 127.0.0.1.

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

function listen(server: HttpServer | TcpServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
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

import type { IncomingMessage, ServerResponse } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { connect, createServer, type Server } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { freePort } from '../../node-agent/testing/harness'
import type { AgentIdentity, AgentProcess } from './agent-process'
import type { CaddyProcess } from './caddy'
import type { PowerDnsProcess } from './powerdns-boxes'
import type { PanelRelay } from './relay'

// The control server's calls: workerd (where the tests run) cannot spawn processes or open raw sockets to
// anything but fetch, so the tests ask the Node side to stop and start peers, make TLS and TCP requests and
// relay the agent's calls to the panel.

/** Everything the control server drives. */
export interface Peers {
  boxes: readonly PowerDnsProcess[]
  caddy: CaddyProcess
  agent: AgentProcess
  relay: PanelRelay
  httpsPort: number
  trustBundle: string
  validating: { wipeCache: (name: string) => void }
}

/** What one HTTPS request through Caddy got: the answer and the certificate served, or the error. */
export type HttpsResult =
  | { ok: true; status: number; body: string; serial: string; notAfter: string; issuer: string }
  | { ok: false; error: string }

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = ''
  for await (const chunk of req) body += String(chunk)
  return body
}

/** A request the panel makes to a name the node's Caddy serves, and what came back (or the error). */
export interface CaddyRequest {
  url: string
  method: string
  headers: Record<string, string>
  body: string
}
export type CaddyAnswer =
  | { status: number; headers: Record<string, string>; body: string }
  | { error: string }

/**
 * Sends the request to Caddy's HTTPS port with the URL's host as SNI and Host, trusting only pebble's roots:
 * `curl --resolve <host>:<port>:127.0.0.1 --cacert <pebble roots>`, in Node.
 */
function requestThroughCaddy(peers: Peers, request: CaddyRequest): Promise<CaddyAnswer> {
  const url = new URL(request.url)
  return new Promise((resolve) => {
    const outgoing = httpsRequest(
      {
        host: '127.0.0.1',
        port: peers.httpsPort,
        servername: url.hostname,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...request.headers, host: url.host },
        ca: peers.trustBundle,
        timeout: 60_000,
        agent: false,
      },
      (response) => {
        let body = ''
        response.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk
        })
        response.on('end', () => {
          const headers: Record<string, string> = {}
          for (const [name, value] of Object.entries(response.headers))
            if (typeof value === 'string') headers[name] = value
          resolve({ status: response.statusCode ?? 0, headers, body })
        })
      },
    )
    outgoing.once('timeout', () => outgoing.destroy(new Error('no answer within 60 s')))
    outgoing.once('error', (error) => resolve({ error: error.message }))
    outgoing.end(request.body === '' ? undefined : request.body)
  })
}

/** `curl --resolve <host>:<port>:127.0.0.1 --cacert <pebble roots> https://<host>:<port>/`, in Node. */
function httpsThroughCaddy(peers: Peers, host: string): Promise<HttpsResult> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: peers.httpsPort,
        servername: host,
        headers: { host },
        path: '/',
        ca: peers.trustBundle,
        timeout: 60_000,
        agent: false,
      },
      (response) => {
        const certificate = (response.socket as TLSSocket).getPeerX509Certificate()
        let body = ''
        response.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk
        })
        response.on('end', () =>
          resolve({
            ok: true,
            status: response.statusCode ?? 0,
            body,
            serial: certificate?.serialNumber ?? '',
            notAfter: certificate ? new Date(certificate.validTo).toISOString() : '',
            issuer: certificate?.issuer ?? '',
          }),
        )
      },
    )
    req.once('timeout', () => req.destroy(new Error('no answer within 60 s')))
    req.once('error', (error) => resolve({ ok: false, error: error.message }))
    req.end()
  })
}

/** Sends `text` to 127.0.0.1:`port` and resolves with what came back within 3 s (or the error). */
function tcpRoundTrip(port: number, text: string): Promise<{ echoed: string } | { error: string }> {
  return new Promise((resolve) => {
    let echoed = ''
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(text))
    const done = (result: { echoed: string } | { error: string }) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(result)
    }
    const timer = setTimeout(() => done({ echoed }), 3000)
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      echoed += chunk
      if (echoed.length >= text.length) done({ echoed })
    })
    socket.once('error', (error) => done({ error: error.message }))
    socket.once('end', () => done({ echoed }))
  })
}

// Ports a test holds so the agent cannot bind them (module-wide: each request gets its own handler).
const held = new Map<number, Server>()

/** Listens on a free 127.0.0.1 port (answering `held` to anyone who connects) until released. */
async function holdPort(): Promise<number> {
  const server = createServer((socket) => socket.end('held').destroySoon())
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : 0)
    })
  })
  held.set(port, server)
  return port
}

async function releasePort(port: number): Promise<void> {
  const server = held.get(port)
  held.delete(port)
  if (server) await new Promise((resolve) => server.close(resolve))
}

/** The control server's request handler. */
export function controlHandler(peers: Peers) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://control')
    const q = (name: string) => url.searchParams.get(name) ?? ''
    const call = `${req.method} ${url.pathname}`
    try {
      if (url.pathname.startsWith('/panel/')) {
        return await peers.relay.receive(req, res, url.pathname.slice('/panel'.length))
      }
      const box = peers.boxes[Number(q('box'))]
      if (call === 'POST /stop' && box) await box.stop()
      else if (call === 'POST /start' && box) await box.start()
      else if (call === 'GET /dig' && box) return reply(res, 200, box.dig(q('name'), q('type') || 'A'))
      else if (call === 'POST /agent/start') {
        await peers.agent.start(JSON.parse(await readBody(req)) as AgentIdentity)
      } else if (call === 'POST /agent/kill') await peers.agent.kill()
      else if (call === 'POST /agent/restart') await peers.agent.restart()
      else if (call === 'POST /caddy/request') {
        return reply(
          res,
          200,
          await requestThroughCaddy(peers, JSON.parse(await readBody(req)) as CaddyRequest),
        )
      } else if (call === 'GET /agent/log') return reply(res, 200, { log: peers.agent.output })
      else if (call === 'POST /caddy/stop') await peers.caddy.stop()
      else if (call === 'POST /caddy/start') await peers.caddy.start()
      else if (call === 'GET /https') return reply(res, 200, await httpsThroughCaddy(peers, q('host')))
      else if (call === 'POST /validating/wipe-cache') peers.validating.wipeCache(q('name'))
      else if (call === 'GET /free-port') return reply(res, 200, { port: await freePort() })
      else if (call === 'POST /port/hold') return reply(res, 200, { port: await holdPort() })
      else if (call === 'POST /port/release') await releasePort(Number(q('port')))
      else if (call === 'GET /tcp') return reply(res, 200, await tcpRoundTrip(Number(q('port')), q('text')))
      else if (call === 'GET /relay/next') {
        const request = await peers.relay.next(Number(q('wait')) || 1000)
        if (request) return reply(res, 200, request)
        res.writeHead(204).end()
        return
      } else if (call === 'POST /relay/answer') {
        const answer = JSON.parse(await readBody(req)) as {
          status: number
          body: string
          contentType: string
        }
        peers.relay.respond(Number(q('id')), answer.status, answer.body, answer.contentType)
      } else return reply(res, 404, { error: `unknown control call ${call}` })
      reply(res, 200, { ok: true })
    } catch (error) {
      reply(res, 500, { error: String(error) })
    }
  }
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseCaddyAdmin } from './caddy-admin.ts'
import type { OwnEndpoint } from './checks/destination.ts'
import { type AgentConfig, splitHostPort } from './config.ts'
import { EdgeAgent } from './edge-agent.ts'
import { askHandler, contractHandler } from './routes.ts'
import { SeenNonces } from './seen-nonces.ts'

/** A running agent: its two addresses and how to stop it. */
export interface RunningAgent {
  url: string
  askUrl: string
  agent: EdgeAgent
  close(): Promise<void>
}

interface Bound {
  server: Server
  url: string
  /** `host:port` a process on this machine dials (a wildcard address becomes loopback). */
  local: string
  port: number
}

async function listen(address: string): Promise<Bound> {
  const server = createServer()
  const { host, port } = splitHostPort(address)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: host || '127.0.0.1', port }, () => resolve())
  })
  const bound = server.address() as AddressInfo
  const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address
  const wildcard = bound.address === '0.0.0.0' || bound.address === '::'
  const local = wildcard ? `127.0.0.1:${bound.port}` : `${shown}:${bound.port}`
  return { server, url: `http://${shown}:${bound.port}`, local, port: bound.port }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}

/**
 * Starts the ask gate and the contract API (port 0 picks a free port for either), restores the saved edge state
 * before the API answers anything, then — in the background — asks the panel for the current state, makes sure
 * of its own certificate, scans the certificates Caddy holds every `certificateScanMs` and follows Caddy's log of
 * certificate attempts.
 */
export async function startAgent(config: AgentConfig): Promise<RunningAgent> {
  const nonces = await SeenNonces.load(config.stateDir)
  // The ask gate's address and the API's go into every Caddy config, so both are bound first.
  const ask = await listen(config.askListen)
  const api = await listen(config.listen).catch(async (error: unknown) => {
    await closeServer(ask.server)
    throw error
  })
  const caddyAdmin = parseCaddyAdmin(config.caddyAdmin)
  const own: OwnEndpoint[] = [
    { what: "this agent's contract API", host: splitHostPort(config.listen).host, port: api.port },
    { what: "this agent's ask gate", host: splitHostPort(config.askListen).host, port: ask.port },
    ...('host' in caddyAdmin
      ? [{ what: "Caddy's admin API", host: caddyAdmin.host, port: caddyAdmin.port }]
      : []),
  ]
  const running = new EdgeAgent(config, `${ask.url}/ask`, api.local, own)
  ask.server.on('request', askHandler(running))
  // Calls that arrive while the saved state is being restored wait for it.
  let restored = () => {}
  const ready = new Promise<void>((resolve) => {
    restored = resolve
  })
  const contract = contractHandler(running, config.secret, nonces)
  api.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    void ready.then(() => contract(request, response))
  })
  let scans: NodeJS.Timeout | undefined
  const attempts = running.attemptWatch()
  const close = async () => {
    clearInterval(scans)
    await Promise.all([closeServer(api.server), closeServer(ask.server), running.close(), attempts?.close()])
  }
  try {
    await running.restore()
  } catch (error) {
    await close()
    throw error
  }
  restored()
  void running.catchUp()
  void running.primeOwnHostname()
  attempts?.start()
  const scan = () => void running.scanCertificates().catch((error: unknown) => console.error(error))
  scans = setInterval(scan, config.certificateScanMs).unref()
  scan()
  return { url: api.url, askUrl: `${ask.url}/ask`, agent: running, close }
}

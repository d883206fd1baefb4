import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type AgentConfig, splitHostPort } from './config.ts'
import { EdgeAgent } from './edge-agent.ts'
import { askHandler, contractHandler } from './routes.ts'

/** A running agent: its two addresses and how to stop it. */
export interface RunningAgent {
  url: string
  askUrl: string
  agent: EdgeAgent
  close(): Promise<void>
}

async function listen(address: string): Promise<{ server: Server; url: string }> {
  const server = createServer()
  const { host, port } = splitHostPort(address)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: host || '127.0.0.1', port }, () => resolve())
  })
  const bound = server.address() as AddressInfo
  const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address
  return { server, url: `http://${shown}:${bound.port}` }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}

/** Starts the ask gate, then the contract API (port 0 picks a free port for either). */
export async function startAgent(config: AgentConfig): Promise<RunningAgent> {
  // The ask gate's address goes into every Caddy config, so it is bound first.
  const ask = await listen(config.askListen)
  const running = new EdgeAgent(config, `${ask.url}/ask`)
  ask.server.on('request', askHandler(running))
  const api = await listen(config.listen).catch(async (error: unknown) => {
    await closeServer(ask.server)
    throw error
  })
  api.server.on('request', contractHandler(running, config.secret))
  return {
    url: api.url,
    askUrl: `${ask.url}/ask`,
    agent: running,
    close: async () => {
      await Promise.all([closeServer(api.server), closeServer(ask.server), running.close()])
    },
  }
}

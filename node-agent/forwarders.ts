import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram'
import { createConnection, createServer, isIP, type Server, type Socket } from 'node:net'
import type { EntryFailure, Forward } from '../src/agent-contract/v1.ts'
import { parseUpstream, type Upstream } from './upstream.ts'

const UDP_IDLE_MS = 60_000

interface Listener {
  upstream: Upstream
  close(): Promise<void>
}

function upstreamOf(forward: Forward): Upstream {
  const upstream = parseUpstream(forward.upstream)
  if (!upstream)
    throw new Error(`forward ${forward.listenPort}: upstream ${forward.upstream} is not <address>:<port>`)
  return upstream
}

function startTcp(host: string, port: number, upstream: Upstream): Promise<Listener> {
  const listener: Listener = { upstream, close: () => Promise.resolve() }
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const target = createConnection({ host: listener.upstream.host, port: listener.upstream.port })
    for (const socket of [client, target]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    }
    client.pipe(target).pipe(client)
    client.on('error', () => target.destroy())
    target.on('error', () => client.destroy())
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host, port }, () => {
      server.off('error', reject)
      listener.close = () =>
        new Promise((done) => {
          server.close(() => done())
          // A removed forward stops now, open connections included.
          for (const socket of sockets) socket.destroy()
        })
      resolve(listener)
    })
  })
}

function startUdp(host: string, port: number, upstream: Upstream): Promise<Listener> {
  const listener: Listener = { upstream, close: () => Promise.resolve() }
  const front = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4')
  // One upstream socket per client address, so answers find their way back; dropped after a minute of silence.
  const sessions = new Map<string, { socket: UdpSocket; timer: NodeJS.Timeout }>()
  const session = (client: RemoteInfo) => {
    const key = `${client.address}|${client.port}`
    const existing = sessions.get(key)
    if (existing) {
      existing.timer.refresh()
      return existing.socket
    }
    const socket = createSocket(isIP(listener.upstream.host) === 6 ? 'udp6' : 'udp4')
    socket.on('message', (answer) => front.send(answer, client.port, client.address))
    socket.on('error', () => socket.close())
    const timer = setTimeout(() => {
      sessions.delete(key)
      socket.close()
    }, UDP_IDLE_MS)
    sessions.set(key, { socket, timer })
    return socket
  }
  front.on('message', (message, client) =>
    session(client).send(message, listener.upstream.port, listener.upstream.host),
  )
  return new Promise((resolve, reject) => {
    front.once('error', reject)
    front.bind({ address: host, port }, () => {
      front.off('error', reject)
      listener.close = () =>
        new Promise((done) => {
          for (const { socket, timer } of sessions.values()) {
            clearTimeout(timer)
            socket.close()
          }
          sessions.clear()
          front.close(() => done())
        })
      resolve(listener)
    })
  })
}

/** A replacement prepared by `Forwarders.prepare`: new listeners are bound; commit or roll back. */
export interface PreparedForwards {
  /** The forwards that could not listen, each with the reason; the others serve once committed. */
  failed: EntryFailure[]
  commit(): Promise<void>
  rollback(): Promise<void>
}

/** The raw forwards (the "proxy device"): TCP and UDP listeners on this node relaying to their upstreams. */
export class Forwarders {
  readonly #host: string
  readonly #listeners = new Map<string, Listener>()

  constructor(host: string) {
    this.#host = host
  }

  /**
   * Binds every listener the new set adds without touching the running ones; one that cannot bind is reported
   * failed and the others go on. Commit then points kept listeners at their new upstreams and closes the ones
   * no longer wanted; rollback closes the new ones.
   */
  async prepare(forwards: readonly Forward[]): Promise<PreparedForwards> {
    const wanted = new Map(forwards.map((forward) => [`${forward.proto}/${forward.listenPort}`, forward]))
    const started = new Map<string, Listener>()
    const failed: EntryFailure[] = []
    for (const [key, forward] of wanted) {
      if (this.#listeners.has(key)) continue
      try {
        const start = forward.proto === 'tcp' ? startTcp : startUdp
        started.set(key, await start(this.#host, forward.listenPort, upstreamOf(forward)))
      } catch (error) {
        const { listenPort, proto } = forward
        const reason = error instanceof Error ? error.message : String(error)
        failed.push({ kind: 'forward', listenPort, proto, error: `cannot listen on ${key}: ${reason}` })
      }
    }
    return {
      failed,
      rollback: async () => {
        await Promise.all([...started.values()].map((listener) => listener.close()))
      },
      commit: async () => {
        const removed: Listener[] = []
        for (const [key, listener] of this.#listeners) {
          const forward = wanted.get(key)
          if (forward) listener.upstream = upstreamOf(forward)
          else {
            removed.push(listener)
            this.#listeners.delete(key)
          }
        }
        for (const [key, listener] of started) this.#listeners.set(key, listener)
        await Promise.all(removed.map((listener) => listener.close()))
      },
    }
  }

  /** Closes every listener. */
  async close(): Promise<void> {
    await Promise.all([...this.#listeners.values()].map((listener) => listener.close()))
    this.#listeners.clear()
  }
}

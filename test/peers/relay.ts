import type { IncomingMessage, ServerResponse } from 'node:http'

// The agent → panel direction in the peers suite. The panel runs inside workerd (vitest's pool), which listens
// on no port, so the agent's panel URL is this relay: it holds each request, a test takes it (`next`), hands
// it unchanged to the panel's own fetch handler and gives back the panel's answer (`answer`), which the agent
// then receives. Nothing is answered here on the panel's behalf.

/** One request the agent made to the panel, as the test forwards it. */
export interface RelayedRequest {
  id: number
  method: string
  path: string
  headers: Record<string, string>
  body: string
}

const HOLD_MS = 14_000

export class PanelRelay {
  private nextId = 1
  private readonly waiting: RelayedRequest[] = []
  private readonly held = new Map<number, ServerResponse>()
  private readonly takers: ((request: RelayedRequest | null) => void)[] = []

  /** Holds an agent's request until a test answers it (504 after 14 s, inside the agent's 15 s). */
  async receive(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    let body = ''
    for await (const chunk of req) body += String(chunk)
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && (name.startsWith('x-') || name === 'content-type'))
        headers[name] = value
    }
    const request = { id: this.nextId++, method: req.method ?? 'GET', path, headers, body }
    this.held.set(request.id, res)
    setTimeout(
      () => this.respond(request.id, 504, 'no test forwarded this request to the panel'),
      HOLD_MS,
    ).unref()
    const taker = this.takers.shift()
    if (taker) taker(request)
    else this.waiting.push(request)
  }

  /** The oldest request not yet taken, waiting up to `waitMs` for one; null when none came. */
  next(waitMs: number): Promise<RelayedRequest | null> {
    const request = this.waiting.shift()
    if (request) return Promise.resolve(request)
    return new Promise((resolve) => {
      const taker = (found: RelayedRequest | null) => {
        clearTimeout(timer)
        resolve(found)
      }
      const timer = setTimeout(() => {
        this.takers.splice(this.takers.indexOf(taker), 1)
        resolve(null)
      }, waitMs)
      this.takers.push(taker)
    })
  }

  /** Sends the panel's answer to the agent that is waiting for it. */
  respond(id: number, status: number, body: string, contentType = 'text/plain'): void {
    const res = this.held.get(id)
    if (!res) return
    this.held.delete(id)
    res.writeHead(status, { 'content-type': contentType })
    res.end(body)
  }

  /** Answers every held request 503 (teardown). */
  close(): void {
    for (const id of [...this.held.keys()]) this.respond(id, 503, 'the peers suite is stopping')
    for (const taker of this.takers.splice(0)) taker(null)
  }
}

import { verifyServiceSignature } from '../../src/lib/service-signature'
import { fakeOrigin } from '../helpers/outbound'
import { FakePowerDns } from './powerdns'

// A node agent that speaks the panel's agent contract: signed JSON POSTs (x-service-timestamp,
// x-service-signature over `<timestamp>.<raw body>` with the node's agent secret).

export class FakeNodeAgent {
  /** The PowerDNS this agent installed, once `POST /v1/powerdns/install` ran. */
  powerDns: FakePowerDns | null = null
  readonly calls: { path: string; body: unknown }[] = []
  /** Set to make the install fail with this status and body (a function gets the API key it was sent). */
  failWith: { status: number; body: string | ((apiKey: string) => string) } | null = null

  constructor(
    readonly agentUrl: string,
    readonly secret: string,
    private readonly powerDnsOrigin: string,
  ) {}

  install(): this {
    fakeOrigin(this.agentUrl, (request) => this.handle(request))
    return this
  }

  private async handle(request: Request): Promise<Response> {
    const raw = await request.text()
    const verdict = await verifyServiceSignature(raw, request.headers, this.secret)
    if (!verdict.ok) return Response.json({ error: verdict.reason }, { status: 401 })
    const path = new URL(request.url).pathname
    const body: unknown = JSON.parse(raw)
    this.calls.push({ path, body })
    if (path !== '/v1/powerdns/install' || request.method !== 'POST') {
      return Response.json({ error: 'not found' }, { status: 404 })
    }
    const { apiKey } = body as { apiKey: string }
    if (this.failWith) {
      const { status, body: failure } = this.failWith
      return new Response(typeof failure === 'function' ? failure(apiKey) : failure, { status })
    }
    if (this.powerDns) this.powerDns.apiKey = apiKey
    else this.powerDns = new FakePowerDns(this.powerDnsOrigin, apiKey).install()
    return Response.json({ apiUrl: this.powerDnsOrigin, serverId: 'localhost', version: '4.7.3' })
  }
}

import { type RunCheckRequest, RunCheckRequestSchema } from '../../src/agent-contract/checks'
import {
  EDGE_DELTA_PATHS,
  type EdgeChanges,
  EdgeChangesSchema,
  type EdgeStatePart,
  EdgeStatePartSchema,
} from '../../src/agent-contract/edge-changes'
import {
  type CertificateObservation,
  CONTRACT_VERSION,
  type EdgeState,
  EdgeStateSchema,
  type EntryFailure,
  HostnameRequestSchema,
} from '../../src/agent-contract/v1'
import { verifyAgentSignature } from '../../src/lib/agent-signature'
import { fakeOrigin } from '../helpers/outbound'
import { FakePowerDns } from './powerdns'

// A node agent that speaks contract v2 (src/agent-contract/v1.ts): JSON POSTs under /v2 signed for their
// direction, method, path and body with a nonce (src/lib/agent-signature.ts), a repeated nonce refused,
// problem+json errors.

const problem = (status: number, detail: string) =>
  new Response(JSON.stringify({ type: 'about:blank', title: 'refused', status, detail }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  })

export class FakeNodeAgent {
  /** The PowerDNS this agent installed, once `POST /v2/powerdns/install` ran. */
  powerDns: FakePowerDns | null = null
  /** Every signed call, in order, with the bytes of its body. */
  readonly calls: { path: string; body: unknown; bytes: number }[] = []
  /** True: an agent 0.4.0, which takes changes on a base version and whole states in parts; false: it answers 404. */
  deltas = false
  private parts: { configVersion: number; received: Map<number, EdgeStatePart> } | null = null
  /** Set to make the install fail with this status and body (a function gets the API key it was sent). */
  failWith: { status: number; body: string | ((apiKey: string) => string) } | null = null
  /** The edge state the agent serves: the last apply it accepted. */
  edge: EdgeState = { configVersion: 0, vhosts: [], forwards: [] }
  /** Makes `POST /v2/edge/apply` answer 422 with this detail, as when the proxy refuses a config. */
  refuseApply: string | null = null
  /** Ports something else holds on the node: a forward on one is answered failed, the rest applies. */
  readonly takenPorts = new Set<number>()
  /** False: the agent predates per-entry outcomes and leaves `failed` out of its answer. */
  perEntry = true
  /** Whether the agent reports that it manages the firewall. */
  firewallManaged = false
  /** False as when Caddy is stopped: health reports the proxy unreachable and an apply answers 502. */
  proxyReachable = true
  /** While true every call fails like a network error: the agent is down. */
  down = false
  /** While true every call is handled but its answer is lost on the way back. */
  loseAnswers = false
  /** The certificate served per hostname, as priming or renewing left it. */
  readonly certificates = new Map<string, CertificateObservation>()
  private serials = 0
  private readonly nonces = new Set<string>()

  constructor(
    readonly agentUrl: string,
    readonly secret: string,
    private readonly powerDnsOrigin = 'https://pdns.unused.test',
  ) {}

  install(): this {
    fakeOrigin(this.agentUrl, async (request) => {
      const answer = await this.handle(request)
      if (this.loseAnswers) throw new TypeError('the connection was reset before the answer arrived')
      return answer
    })
    return this
  }

  /** The checks the panel asked this node to run, in order (the test posts their results). */
  checkRuns(): RunCheckRequest[] {
    return this.calls
      .filter((call) => call.path === '/v2/checks/run')
      .map((call) => call.body as RunCheckRequest)
  }

  /** The apply calls received, in order. */
  applies(): EdgeState[] {
    return this.calls.filter((call) => call.path === '/v2/edge/apply').map((call) => call.body as EdgeState)
  }

  private async handle(request: Request): Promise<Response> {
    if (this.down) throw new TypeError('network connection lost')
    const raw = await request.text()
    const path = new URL(request.url).pathname
    const verdict = await verifyAgentSignature(
      this.secret,
      { direction: 'panel-to-agent', method: request.method, path, body: raw },
      request.headers,
    )
    if (!verdict.ok) return problem(401, verdict.reason)
    if (this.nonces.has(verdict.nonce)) return problem(401, 'the nonce was already used')
    this.nonces.add(verdict.nonce)
    const body: unknown = JSON.parse(raw)
    this.calls.push({ path, body, bytes: new TextEncoder().encode(raw).length })
    if (request.method !== 'POST') return problem(404, 'not found')
    switch (path) {
      case '/v2/powerdns/install':
        return this.installPowerDns(body as { apiKey: string })
      case '/v2/edge/apply':
        return this.apply(body)
      case EDGE_DELTA_PATHS.changes:
        return this.deltas ? this.changes(body) : problem(404, 'no such call')
      case EDGE_DELTA_PATHS.parts:
        return this.deltas ? this.part(body) : problem(404, 'no such call')
      case '/v2/certificates/prime':
      case '/v2/certificates/renew':
        return this.certificate(body, path.endsWith('renew'))
      case '/v2/smoke':
        return this.smoke(body)
      case '/v2/checks/run': {
        const parsed = RunCheckRequestSchema.safeParse(body)
        if (!parsed.success) return problem(400, `not a check: ${parsed.error.message}`)
        return Response.json({ accepted: true })
      }
      case '/v2/health':
        return Response.json({
          agentVersion: 'fake-1.0.0',
          contract: CONTRACT_VERSION,
          appliedVersion: this.edge.configVersion,
          proxy: { name: 'caddy', version: '2.6.2', reachable: this.proxyReachable },
        })
      default:
        return problem(404, 'not found')
    }
  }

  private installPowerDns({ apiKey }: { apiKey: string }): Response {
    if (this.failWith) {
      const { status, body: failure } = this.failWith
      return new Response(typeof failure === 'function' ? failure(apiKey) : failure, { status })
    }
    if (this.powerDns) this.powerDns.apiKey = apiKey
    else this.powerDns = new FakePowerDns(this.powerDnsOrigin, apiKey).install()
    return Response.json({ apiUrl: this.powerDnsOrigin, serverId: 'localhost', version: '4.7.3' })
  }

  /** The changes calls received, in order. */
  changeSets(): EdgeChanges[] {
    return this.calls
      .filter((call) => call.path === EDGE_DELTA_PATHS.changes)
      .map((call) => call.body as EdgeChanges)
  }

  /** The parts received, in order. */
  partsSent(): EdgeStatePart[] {
    return this.calls
      .filter((call) => call.path === EDGE_DELTA_PATHS.parts)
      .map((call) => call.body as EdgeStatePart)
  }

  private apply(body: unknown): Response {
    const parsed = EdgeStateSchema.safeParse(body)
    if (!parsed.success) return problem(400, `not an edge state: ${parsed.error.message}`)
    return this.serve(parsed.data)
  }

  // Changes apply on the version served only; a version served already (or older) answers what is served.
  private changes(body: unknown): Response {
    const parsed = EdgeChangesSchema.safeParse(body)
    if (!parsed.success) return problem(400, `not edge changes: ${parsed.error.message}`)
    const changes = parsed.data
    if (changes.configVersion <= this.edge.configVersion) return this.serve(this.edge)
    if (changes.baseVersion !== this.edge.configVersion) {
      return new Response(
        JSON.stringify({
          type: 'about:blank',
          title: 'version mismatch',
          status: 409,
          detail: `this node serves version ${this.edge.configVersion}, not ${changes.baseVersion}`,
          code: 'version_mismatch',
          appliedVersion: this.edge.configVersion,
        }),
        { status: 409, headers: { 'content-type': 'application/problem+json' } },
      )
    }
    const gone = new Set([...changes.removeHostnames, ...changes.vhosts.map((vhost) => vhost.hostname)])
    const forwardKey = (f: { proto: string; listenPort: number }) => `${f.proto}/${f.listenPort}`
    const goneForwards = new Set([...changes.removeForwards, ...changes.forwards].map(forwardKey))
    return this.serve({
      configVersion: changes.configVersion,
      vhosts: [...this.edge.vhosts.filter((vhost) => !gone.has(vhost.hostname)), ...changes.vhosts],
      forwards: [
        ...this.edge.forwards.filter((forward) => !goneForwards.has(forwardKey(forward))),
        ...changes.forwards,
      ],
    })
  }

  // The parts of one version are kept until all are in; a part of a newer version drops an older unfinished one.
  private async part(body: unknown): Promise<Response> {
    const parsed = EdgeStatePartSchema.safeParse(body)
    if (!parsed.success) return problem(400, `not a part: ${parsed.error.message}`)
    const part = parsed.data
    if (!this.parts || this.parts.configVersion < part.configVersion)
      this.parts = { configVersion: part.configVersion, received: new Map() }
    if (this.parts.configVersion === part.configVersion) this.parts.received.set(part.part, part)
    const received = this.parts.received
    const complete = received.size === part.parts
    const answer = (applied: unknown) =>
      Response.json({
        configVersion: part.configVersion,
        partsReceived: received.size,
        parts: part.parts,
        applied,
      })
    if (!complete) return answer(null)
    const ordered = [...received.values()].sort((a, b) => a.part - b.part)
    this.parts = null
    const served = this.serve({
      configVersion: part.configVersion,
      vhosts: ordered.flatMap((each) => each.vhosts),
      forwards: ordered.flatMap((each) => each.forwards),
    })
    return served.ok ? answer(await served.json()) : served
  }

  private serve(state: EdgeState): Response {
    if (this.refuseApply) return problem(422, this.refuseApply)
    if (!this.proxyReachable)
      return problem(502, "Caddy's admin API did not answer: fetch failed (ECONNREFUSED)")
    // An older version than the one serving changes nothing: the agent answers what it serves.
    if (state.configVersion >= this.edge.configVersion) this.edge = state
    const failed: EntryFailure[] = this.edge.forwards
      .filter((forward) => this.takenPorts.has(forward.listenPort))
      .map(({ listenPort, proto }) => ({
        kind: 'forward',
        listenPort,
        proto,
        error: `cannot listen on ${proto}/${listenPort}: listen EADDRINUSE: address already in use 0.0.0.0:${listenPort}`,
      }))
    return Response.json({
      ...(this.perEntry ? { failed } : {}),
      appliedVersion: this.edge.configVersion,
      firewall: {
        managed: this.firewallManaged,
        rules: this.edge.forwards.map(
          (forward) => `-A INPUT -p ${forward.proto} --dport ${forward.listenPort} -j ACCEPT`,
        ),
      },
    })
  }

  private certificate(body: unknown, renew: boolean): Response {
    const parsed = HostnameRequestSchema.safeParse(body)
    if (!parsed.success) return problem(400, 'hostname is required')
    const { hostname } = parsed.data
    if (!this.edge.vhosts.some((vhost) => vhost.hostname === hostname)) {
      return problem(422, `${hostname} is not in the desired state`)
    }
    const served = this.certificates.get(hostname)
    if (served && !renew) return Response.json(served)
    const now = new Date()
    const observation: CertificateObservation = {
      hostname,
      notAfter: new Date(now.getTime() + 90 * 86_400_000).toISOString(),
      serial: `0${++this.serials}`.padStart(16, '0'),
      issuer: 'CN=Pebble Intermediate CA',
      observedAt: now.toISOString(),
    }
    this.certificates.set(hostname, observation)
    return Response.json(observation)
  }

  private smoke(body: unknown): Response {
    const parsed = HostnameRequestSchema.safeParse(body)
    if (!parsed.success) return problem(400, 'hostname is required')
    const routed = this.edge.vhosts.some((vhost) => vhost.hostname === parsed.data.hostname)
    return Response.json(
      routed
        ? { ok: true, status: 200, detail: `GET https://${parsed.data.hostname}/ answered 200` }
        : { ok: false, status: null, detail: `${parsed.data.hostname} is not routed on this node` },
    )
  }
}

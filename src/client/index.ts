import type { Router } from '../rpc/registry'
import type { ClientOf } from './types'

export type { ClientOf } from './types'

export interface ClientOptions {
  /** The panel's address, for example `https://panel.example.com`. */
  baseUrl: string
  /** An API token (`pat_…`) or site-bound token (`spat_…`); without one, a same-origin browser sends its session cookie. */
  token?: string
  fetch?: (input: string, init: RequestInit) => Promise<Response>
}

export interface ProblemDetails {
  type: string
  title: string
  status: number
  detail: string
  code: string
  requestId?: string
  issues?: { path: string; message: string }[]
}

/** Thrown for every non-2xx answer; carries the problem+json body. */
export class PanelError extends Error {
  // Plain fields, not parameter properties: Node runs this file by stripping types, which allows no emitted syntax.
  readonly status: number
  readonly problem: ProblemDetails

  constructor(status: number, problem: ProblemDetails) {
    super(`${problem.code}: ${problem.detail}`)
    this.name = 'PanelError'
    this.status = status
    this.problem = problem
  }
}

async function readProblem(response: Response): Promise<ProblemDetails> {
  const text = await response.text()
  try {
    return JSON.parse(text) as ProblemDetails
  } catch {
    return {
      type: 'about:blank',
      title: response.statusText,
      status: response.status,
      detail: text,
      code: 'unknown',
    }
  }
}

/** A typed client over the RPC transport: `client.nodes.create({...})` posts to `/api/rpc/nodes.create`. */
export function createClient(options: ClientOptions): ClientOf<Router> {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const base = options.baseUrl.replace(/\/+$/, '')
  const call = async (name: string, input: unknown) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (options.token) headers.authorization = `Bearer ${options.token}`
    const response = await doFetch(`${base}/api/rpc/${name}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(input ?? {}),
    })
    if (!response.ok) throw new PanelError(response.status, await readProblem(response))
    return response.json()
  }
  const proxy = (path: string[]): unknown =>
    new Proxy(() => undefined, {
      get: (_target, key) => (typeof key === 'string' && key !== 'then' ? proxy([...path, key]) : undefined),
      apply: (_target, _this, args: unknown[]) => call(path.join('.'), args[0]),
    })
  return proxy([]) as ClientOf<Router>
}

export { type SignatureVerdict, verifyServiceSignature } from '../lib/service-signature.ts'

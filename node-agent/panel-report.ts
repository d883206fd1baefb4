import {
  CERTIFICATE_ATTEMPTS_CALLBACK,
  type CertificateAttempt,
} from '../src/agent-contract/certificate-attempts.ts'
import type { CheckResultReport } from '../src/agent-contract/checks.ts'
import { EDGE_STATE_PARTS_CALLBACK, EdgeStatePageSchema } from '../src/agent-contract/edge-changes.ts'
import { RENEWAL_WINDOWS_CALLBACK, type RenewalWindow } from '../src/agent-contract/renewal-windows.ts'
import {
  CALLBACK_PATHS,
  type CertificateObservation,
  type EdgeState,
  EdgeStateAnswerSchema,
  MAX_VHOSTS_PER_STATE,
} from '../src/agent-contract/v1.ts'
import { agentSignatureHeaders } from '../src/lib/agent-signature.ts'

// The agent's calls to the panel, each signed for its method and path (contract v2) plus `x-node-id`.

/** Where and as whom the agent calls the panel. */
export interface PanelTarget {
  panelUrl: string
  nodeId: string
  secret: string
}

const PANEL_TIMEOUT_MS = 15_000

/** The panel answered, but not with 2xx. */
export class PanelRefusal extends Error {
  readonly status: number

  constructor(method: string, path: string, status: number) {
    super(`the panel answered ${method} ${path} with ${status}`)
    this.status = status
  }
}

async function callPanel(
  target: PanelTarget,
  method: 'GET' | 'POST',
  path: string,
  body: string,
): Promise<Response> {
  const signature = await agentSignatureHeaders(target.secret, {
    direction: 'agent-to-panel',
    method,
    path,
    body,
  })
  const response = await fetch(`${target.panelUrl.replace(/\/+$/, '')}${path}`, {
    method,
    headers: {
      ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      'x-node-id': target.nodeId,
      ...signature,
    },
    ...(method === 'POST' ? { body } : {}),
    redirect: 'manual',
    signal: AbortSignal.timeout(PANEL_TIMEOUT_MS),
  })
  if (!response.ok) {
    await response.body?.cancel()
    throw new PanelRefusal(method, path, response.status)
  }
  return response
}

/** `POST <panel>/api/agent/v1/certificates`; throws unless 2xx. */
export async function reportCertificates(
  target: PanelTarget,
  observations: readonly CertificateObservation[],
): Promise<void> {
  const response = await callPanel(
    target,
    'POST',
    CALLBACK_PATHS.certificates,
    JSON.stringify({ observations }),
  )
  await response.body?.cancel()
}

/** `POST <panel>/api/agent/v2/certificate-attempts`; throws unless 2xx. */
export async function reportCertificateAttempts(
  target: PanelTarget,
  attempts: readonly CertificateAttempt[],
): Promise<void> {
  const response = await callPanel(
    target,
    'POST',
    CERTIFICATE_ATTEMPTS_CALLBACK,
    JSON.stringify({ attempts }),
  )
  await response.body?.cancel()
}

/** `POST <panel>/api/agent/v2/renewal-windows`; throws unless 2xx (a panel before the callback answers 404). */
export async function reportRenewalWindows(
  target: PanelTarget,
  windows: readonly RenewalWindow[],
): Promise<void> {
  const response = await callPanel(target, 'POST', RENEWAL_WINDOWS_CALLBACK, JSON.stringify({ windows }))
  await response.body?.cancel()
}

/** `GET <panel>/api/agent/v1/edge-state`: the node's current desired edge state, null when it has none yet. */
async function fetchEdgeState(target: PanelTarget): Promise<EdgeState | null> {
  const response = await callPanel(target, 'GET', CALLBACK_PATHS.edgeState, '')
  const parsed = EdgeStateAnswerSchema.safeParse(await response.json().catch(() => undefined))
  if (!parsed.success) throw new Error('the panel answered the edge state with something else')
  return parsed.data.state
}

// Pages of one version are assembled; a page of another version means the state changed meanwhile, and the
// agent starts over, this many times at most before it gives up until its next try.
const PAGED_ATTEMPTS = 5

/**
 * The node's current desired edge state, null when it has none yet: page by page from
 * `POST <panel>/api/agent/v2/edge-state-parts`, or, from a panel that answers it 404 (one before the paged
 * callback), whole from `GET <panel>/api/agent/v1/edge-state`.
 */
export async function fetchCurrentEdgeState(target: PanelTarget): Promise<EdgeState | null> {
  for (let attempt = 0; attempt < PAGED_ATTEMPTS; attempt++) {
    const state: EdgeState = { configVersion: 0, vhosts: [], forwards: [] }
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      let response: Response
      try {
        response = await callPanel(target, 'POST', EDGE_STATE_PARTS_CALLBACK, JSON.stringify({ cursor }))
      } catch (error) {
        if (error instanceof PanelRefusal && error.status === 404) return fetchEdgeState(target)
        throw error
      }
      const page = EdgeStatePageSchema.safeParse(await response.json().catch(() => undefined))
      if (!page.success) throw new Error('the panel answered a page of the edge state with something else')
      if (!first && page.data.configVersion !== state.configVersion) break
      state.configVersion = page.data.configVersion
      state.vhosts.push(...page.data.vhosts)
      if (first) state.forwards = page.data.forwards
      if (state.vhosts.length > MAX_VHOSTS_PER_STATE)
        throw new Error(`the panel's edge state has more than ${MAX_VHOSTS_PER_STATE} vhosts`)
      cursor = page.data.nextCursor
      if (cursor === null) return state.configVersion === 0 ? null : state
    }
  }
  throw new Error(`the edge state changed while it was read, ${PAGED_ATTEMPTS} times in a row`)
}

/** `POST <panel>/api/agent/v2/check-results`: the verdict of a check the panel asked for; throws unless 2xx. */
export async function reportCheckResult(target: PanelTarget, result: CheckResultReport): Promise<void> {
  const response = await callPanel(target, 'POST', CALLBACK_PATHS.checkResults, JSON.stringify(result))
  await response.body?.cancel()
}

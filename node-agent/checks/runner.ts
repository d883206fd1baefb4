import type { RunCheckRequest } from '../../src/agent-contract/checks.ts'
import { down, type Verdict } from '../../src/probes/checks/verdict.ts'
import { PanelRefusal, type PanelTarget, reportCheckResult } from '../panel-report.ts'
import { AgentProblem } from '../problem.ts'
import { InvalidCidr } from './address-ranges.ts'
import { destinationRule, type OwnEndpoint, type Vet } from './destination.ts'
import { runNodeCheck } from './run.ts'
import { errorText } from './target.ts'

/** Checks one agent runs at once at most; past it the panel is told the node is busy (that location fails). */
const MAX_RUNNING = 64
/** Posting a result again after a failure that may pass (the panel unreachable, a 5xx), after these waits. */
const RETRY_WAITS_MS = [1_000, 3_000]
const MAX_DETAIL = 1000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref())

/**
 * `POST /v2/checks/run`: takes a check the panel asked this node to run, answers at once, runs it in the
 * background and posts the verdict back. Nothing is kept across a restart: the panel asks for every check it
 * wants, and one whose verdict never comes counts as failed there once its deadline passes.
 */
export class NodeChecks {
  readonly #panel: PanelTarget | null
  readonly #dnsServer: string | null
  readonly #own: readonly OwnEndpoint[]
  #running = 0

  /** `own`: the agent's listeners (and Caddy's admin API on TCP), which no check may reach. */
  constructor(panel: PanelTarget | null, dnsServer: string | null, own: readonly OwnEndpoint[]) {
    this.#panel = panel
    this.#dnsServer = dnsServer
    this.#own = own
  }

  take(request: RunCheckRequest): { accepted: true } {
    const panel = this.#panel
    if (!panel)
      throw new AgentProblem(
        409,
        'no_panel',
        'this agent has no panel URL and node id: it cannot post results',
      )
    if (request.location !== panel.nodeId)
      throw new AgentProblem(
        409,
        'wrong_node',
        `this agent runs as node ${panel.nodeId}, not ${request.location}`,
      )
    const vet = this.#rule(request.allowCidrs ?? [])
    if (this.#running >= MAX_RUNNING)
      throw new AgentProblem(503, 'busy', `this agent is running ${MAX_RUNNING} checks already`)
    this.#running++
    void this.#run(panel, request, vet).finally(() => {
      this.#running--
    })
    return { accepted: true }
  }

  #rule(allowCidrs: readonly string[]): Vet {
    try {
      return destinationRule({ own: this.#own, allowCidrs })
    } catch (error) {
      if (!(error instanceof InvalidCidr)) throw error
      const path = `allowCidrs.${error.index}`
      throw new AgentProblem(400, 'validation_failed', `invalid body: ${path}`, [
        { path, message: error.message },
      ])
    }
  }

  async #run(panel: PanelTarget, request: RunCheckRequest, vet: Vet): Promise<void> {
    const context = { vet, dnsServer: this.#dnsServer }
    const verdict: Verdict = await runNodeCheck(request.check, context).catch((error: unknown) =>
      down(`the check failed on the node: ${errorText(error)}`),
    )
    const result = {
      probeId: request.probeId,
      scheduledAt: request.scheduledAt,
      location: request.location,
      ...verdict,
      detail: verdict.detail.slice(0, MAX_DETAIL),
    }
    for (const wait of [0, ...RETRY_WAITS_MS]) {
      await sleep(wait)
      try {
        return await reportCheckResult(panel, result)
      } catch (error) {
        const why = `posting the result of probe ${request.probeId}'s check to the panel failed: ${errorText(error)}`
        console.error(`hosting-panel agent: ${why}`)
        // The panel refused it (too late, not this node's): asking again changes nothing.
        if (error instanceof PanelRefusal && error.status < 500) return
      }
    }
  }
}

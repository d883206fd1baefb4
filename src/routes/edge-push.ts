import type { Applied, EdgeState } from '../agent-contract/v1'
import type { Db } from '../db/client'
import {
  applyEdgeState,
  type NodeAgent,
  NodeAgentError,
  sendEdgeChanges,
  sendEdgeStatePart,
} from '../outside/node-agent'
import type { ChangedEntries } from './changed-entries'
import type { AppliedScope } from './node-outcome'
import { readWholeState } from './state-pages'

/** The version a push takes the node to, from the one the panel knows it serves. */
export interface PushTarget {
  nodeId: string
  /** The version the node applied as the panel last heard (0: none yet). */
  applied: number
  configVersion: number
}

/** What the agent answered, and which of the node's routes that answer speaks for. */
export interface Pushed {
  applied: Applied
  scope: AppliedScope
}

/**
 * Takes the node to `target.configVersion`: the changed entries alone on the version it serves when the log names
 * them, else (nothing applied yet, a change that names no entry, more entries than a body holds, or an agent
 * that serves another version: 409) the whole state, in parts of `partSize` vhosts when larger than one part. An
 * agent before 0.4.0 answers 404 to changes and parts and gets the whole state at /v2/edge/apply, as it always did.
 */
export async function pushEdge(
  database: Db,
  agent: NodeAgent,
  target: PushTarget,
  changed: ChangedEntries,
  partSize: number,
): Promise<Pushed> {
  const whole = async (legacy: boolean): Promise<Pushed> => {
    const state = await readWholeState(database, target.nodeId, target.configVersion, partSize)
    const applied = legacy ? await applyEdgeState(agent, state) : await pushWholeState(agent, state, partSize)
    return { applied, scope: { kind: 'whole' } }
  }
  if (target.applied === 0 || changed.kind === 'everything') return whole(false)
  const answer = await sendEdgeChanges(agent, {
    baseVersion: target.applied,
    configVersion: target.configVersion,
    ...changed.changes,
  })
  if (answer.kind === 'applied') {
    return {
      applied: answer.applied,
      scope: { kind: 'changed', base: target.applied, routeIds: changed.routeIds },
    }
  }
  return whole(answer.kind === 'unsupported')
}

/** The whole state in one apply when it fits one part, else in parts (one apply for an agent before 0.4.0). */
async function pushWholeState(agent: NodeAgent, state: EdgeState, partSize: number): Promise<Applied> {
  if (state.vhosts.length <= partSize) return applyEdgeState(agent, state)
  const parts = Math.ceil(state.vhosts.length / partSize)
  let applied: Applied | null = null
  for (let part = 0; part < parts; part++) {
    const received = await sendEdgeStatePart(agent, {
      configVersion: state.configVersion,
      part,
      parts,
      vhosts: state.vhosts.slice(part * partSize, (part + 1) * partSize),
      forwards: part === 0 ? state.forwards : [],
    })
    if (!received) return applyEdgeState(agent, state)
    applied = received.applied
  }
  if (!applied) {
    throw new NodeAgentError(
      200,
      `the node agent took the ${parts} parts of version ${state.configVersion} but answered none applied`,
    )
  }
  return applied
}

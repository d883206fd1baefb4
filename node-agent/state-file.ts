import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { type EdgeState, EdgeStateSchema } from '../src/agent-contract/v1.ts'
import { writeFileAtomically } from './atomic-file.ts'

// The last applied edge state, kept in the agent's state directory so a restarted agent serves it again before
// the panel says anything. It names the node it belongs to: an agent started as another node ignores it.

const FILE = 'edge-state.json'

const SavedSchema = z.object({ nodeId: z.string().nullable(), state: EdgeStateSchema })

/** Saves the state atomically (see writeFileAtomically). */
export async function saveEdgeState(dir: string, nodeId: string | null, state: EdgeState): Promise<void> {
  await writeFileAtomically(dir, FILE, JSON.stringify({ nodeId, state }))
}

function jsonOrNothing(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The state saved for `nodeId`, or null: nothing saved, saved for another node, or unreadable (then logged). */
export async function loadEdgeState(dir: string, nodeId: string | null): Promise<EdgeState | null> {
  let text: string
  try {
    text = await readFile(path.join(dir, FILE), 'utf8')
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null
    throw error
  }
  const parsed = SavedSchema.safeParse(jsonOrNothing(text))
  if (!parsed.success) {
    console.error(`hosting-panel agent: ignoring ${path.join(dir, FILE)}, which is not a saved edge state`)
    return null
  }
  return parsed.data.nodeId === nodeId ? parsed.data.state : null
}

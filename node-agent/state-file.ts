import { open, readFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { ForwardKeySchema } from '../src/agent-contract/edge-changes.ts'
import { type EdgeState, EdgeStateSchema, ForwardSchema, VhostSchema } from '../src/agent-contract/v1.ts'
import { writeFileAtomically } from './atomic-file.ts'
import type { EdgeDelta } from './served-state.ts'
import { forwardKey } from './validate-state.ts'

// The applied edge state, kept in the agent's state directory so a restarted agent serves it again before the
// panel says anything: a snapshot (the file agent 0.3.0 wrote whole at every apply; it names the node it belongs
// to, and an agent started as another node ignores it) and a journal of the changes applied since, one JSON line
// each, appended and flushed per apply. When the journal outgrows the snapshot, a new snapshot replaces both, so
// saving costs what the change is, plus the whole state once per about as many changed bytes.

const SNAPSHOT = 'edge-state.json'
const JOURNAL = 'edge-journal.ndjson'
/** The journal is compacted once it is larger than the snapshot, and never below this. */
const MIN_JOURNAL_BYTES = 256 * 1024

const SavedSchema = z.object({ nodeId: z.string().nullable(), state: EdgeStateSchema })
const JournalLineSchema = z.object({
  baseVersion: z.number().int().min(0),
  configVersion: z.number().int().min(1),
  vhosts: z.array(VhostSchema),
  removeHostnames: z.array(z.string()),
  forwards: z.array(ForwardSchema),
  removeForwards: z.array(ForwardKeySchema),
})

function jsonOrNothing(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null
    throw error
  }
}

/**
 * The journal's lines applied in order on the snapshot's state, each starting where the one before ended; and
 * whether every line was read (else the next save writes a snapshot, which empties the journal).
 */
function replay(state: EdgeState, journal: string, where: string): { state: EdgeState; whole: boolean } {
  const vhosts = new Map(state.vhosts.map((vhost) => [vhost.hostname, vhost]))
  const forwards = new Map(state.forwards.map((forward) => [forwardKey(forward), forward]))
  let version = state.configVersion
  let whole = true
  const lines = journal.split('\n')
  for (const [index, line] of lines.entries()) {
    if (line === '') continue
    const parsed = JournalLineSchema.safeParse(jsonOrNothing(line))
    if (!parsed.success) {
      // The last line is torn when the agent stopped while appending it: that change was never answered.
      if (index < lines.length - 2)
        console.error(`hosting-panel agent: ${where}: line ${index + 1} is unreadable`)
      whole = false
      break
    }
    const entry = parsed.data
    // Lines the snapshot already holds (a compaction stopped before emptying the journal).
    if (entry.configVersion <= version) continue
    if (entry.baseVersion !== version) {
      console.error(`hosting-panel agent: ${where}: line ${index + 1} does not follow version ${version}`)
      whole = false
      break
    }
    for (const hostname of entry.removeHostnames) vhosts.delete(hostname)
    for (const vhost of entry.vhosts) vhosts.set(vhost.hostname, vhost)
    for (const key of entry.removeForwards) forwards.delete(forwardKey(key))
    for (const forward of entry.forwards) forwards.set(forwardKey(forward), forward)
    version = entry.configVersion
  }
  return {
    state: { configVersion: version, vhosts: [...vhosts.values()], forwards: [...forwards.values()] },
    whole,
  }
}

/** The saved state of one node in one directory. */
export class StateFiles {
  readonly #dir: string
  readonly #nodeId: string | null
  /** Null until a snapshot is written or read: the first save is then a snapshot. */
  #snapshotBytes: number | null = null
  #journalBytes = 0

  constructor(dir: string, nodeId: string | null) {
    this.#dir = dir
    this.#nodeId = nodeId
  }

  /**
   * The saved state: the snapshot with the journal replayed on it, or null (nothing saved, saved for another
   * node, or an unreadable snapshot, then logged).
   */
  async load(): Promise<EdgeState | null> {
    const file = path.join(this.#dir, SNAPSHOT)
    const text = await readOrNull(file)
    if (text === null) return null
    const parsed = SavedSchema.safeParse(jsonOrNothing(text))
    if (!parsed.success) {
      console.error(`hosting-panel agent: ignoring ${file}, which is not a saved edge state`)
      return null
    }
    if (parsed.data.nodeId !== this.#nodeId) return null
    const journal = (await readOrNull(path.join(this.#dir, JOURNAL))) ?? ''
    const replayed = replay(parsed.data.state, journal, path.join(this.#dir, JOURNAL))
    this.#snapshotBytes = replayed.whole ? text.length : null
    this.#journalBytes = journal.length
    return replayed.state
  }

  /** Writes the whole state as the snapshot and empties the journal (each atomically). */
  async snapshot(state: EdgeState): Promise<void> {
    const text = JSON.stringify({ nodeId: this.#nodeId, state })
    await writeFileAtomically(this.#dir, SNAPSHOT, text)
    await writeFileAtomically(this.#dir, JOURNAL, '')
    this.#snapshotBytes = text.length
    this.#journalBytes = 0
  }

  /**
   * Saves one applied change: appends it to the journal and flushes it, or, before any snapshot, writes the
   * whole state (`whole()`) as one. Answers whether the journal is now due for compaction.
   */
  async record(
    baseVersion: number,
    configVersion: number,
    delta: EdgeDelta,
    whole: () => EdgeState,
  ): Promise<boolean> {
    if (this.#snapshotBytes === null) {
      await this.snapshot(whole())
      return false
    }
    const line = `${JSON.stringify({ baseVersion, configVersion, ...delta })}\n`
    const file = await open(path.join(this.#dir, JOURNAL), 'a', 0o600)
    try {
      await file.writeFile(line)
      await file.sync()
    } finally {
      await file.close()
    }
    this.#journalBytes += line.length
    return this.#journalBytes > Math.max(MIN_JOURNAL_BYTES, this.#snapshotBytes)
  }
}

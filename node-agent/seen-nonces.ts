import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { writeFileAtomically } from './atomic-file.ts'
import { AgentProblem } from './problem.ts'

// The nonces of signed requests the agent accepted, each kept until its timestamp leaves the 5-minute window
// (after that the timestamp alone refuses a replay). Kept in the state directory too, written before the request
// is answered: a request captured in the 5 minutes before a restart is refused after it as well.

const FILE = 'seen-nonces.json'
/** At most this many nonces within one window; past it requests are refused until older ones expire. */
const MAX_NONCES = 10_000

const SavedSchema = z.object({ nonces: z.array(z.tuple([z.string(), z.number()])) })

export class SeenNonces {
  readonly #dir: string
  readonly #until: Map<string, number>
  #dirty = false
  #flushing: Promise<void> | null = null

  private constructor(dir: string, until: Map<string, number>) {
    this.#dir = dir
    this.#until = until
  }

  /** The nonces saved in `dir` still within their window; none when there is no file or it is unreadable. */
  static async load(dir: string, now = Date.now()): Promise<SeenNonces> {
    let text = ''
    try {
      text = await readFile(path.join(dir, FILE), 'utf8')
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error
    }
    const until = new Map<string, number>()
    if (text !== '') {
      const saved = SavedSchema.safeParse(jsonOrNothing(text))
      if (saved.success) {
        for (const [nonce, at] of saved.data.nonces.slice(-MAX_NONCES)) if (at >= now) until.set(nonce, at)
      } else console.error(`hosting-panel agent: ignoring ${path.join(dir, FILE)}, which is not a nonce list`)
    }
    return new SeenNonces(dir, until)
  }

  /**
   * Records the nonce, on disk too, and answers true, or answers false when it was already seen within the
   * window. Throws a 503 when the nonce cannot be kept (too many in the window, or the file cannot be written):
   * a request whose nonce a restart would forget is not served.
   */
  async claim(nonce: string, rememberUntil: number, now = Date.now()): Promise<boolean> {
    for (const [seen, until] of this.#until) if (until < now) this.#until.delete(seen)
    if (this.#until.has(nonce)) return false
    if (this.#until.size >= MAX_NONCES)
      throw new AgentProblem(503, 'busy', `over ${MAX_NONCES} signed requests within 5 minutes`)
    this.#until.set(nonce, rememberUntil)
    try {
      await this.#save()
    } catch (error) {
      throw new AgentProblem(
        503,
        'state_unwritable',
        `the agent could not save the request's nonce: ${error instanceof Error ? error.message : error}`,
      )
    }
    return true
  }

  // One write at a time; claims made during a write are saved together by the next one.
  #save(): Promise<void> {
    this.#dirty = true
    this.#flushing ??= this.#flush()
    return this.#flushing
  }

  async #flush(): Promise<void> {
    try {
      while (this.#dirty) {
        this.#dirty = false
        await writeFileAtomically(this.#dir, FILE, JSON.stringify({ nonces: [...this.#until] }))
      }
    } finally {
      // In the same step as the last look at #dirty: a claim after it starts a write of its own.
      this.#flushing = null
    }
  }
}

function jsonOrNothing(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

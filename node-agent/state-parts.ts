import type { EdgeStatePart } from '../src/agent-contract/edge-changes.ts'
import type { EdgeState } from '../src/agent-contract/v1.ts'

/** What taking a part left: the parts held of its version, and the whole state once all are. */
export type TakenPart =
  | { outcome: 'older'; partsReceived: 0 }
  | { outcome: 'held'; partsReceived: number }
  | { outcome: 'complete'; partsReceived: number; state: EdgeState }

/**
 * The parts of the one whole state being received: a part of a newer version (or one cut in another number of
 * parts) drops the parts held, a part of an older version is ignored, a part received twice replaces itself.
 * Bounded: one version, at most `parts` parts of at most 10,000 vhosts each.
 */
export class StateParts {
  #version = 0
  #parts = 0
  readonly #held = new Map<number, EdgeStatePart>()

  take(part: EdgeStatePart): TakenPart {
    if (part.configVersion < this.#version) return { outcome: 'older', partsReceived: 0 }
    if (part.configVersion > this.#version || part.parts !== this.#parts) {
      this.#held.clear()
      this.#version = part.configVersion
      this.#parts = part.parts
    }
    this.#held.set(part.part, part)
    const partsReceived = this.#held.size
    if (partsReceived < part.parts) return { outcome: 'held', partsReceived }
    const ordered = [...this.#held.entries()].sort(([a], [b]) => a - b).map(([, held]) => held)
    this.#held.clear()
    return {
      outcome: 'complete',
      partsReceived,
      state: {
        configVersion: part.configVersion,
        vhosts: ordered.flatMap((held) => held.vhosts),
        forwards: ordered[0]?.forwards ?? [],
      },
    }
  }
}

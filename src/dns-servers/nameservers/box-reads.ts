import { AppError } from '../../rpc/errors'
import { errorText } from '../sync/fan-out'
import type { LiveBox } from './box-clients'

export type FirstAnswer<T> = { ok: true; box: LiveBox; value: T } | { ok: false; error: string }

/**
 * Reads from the boxes that hold the zone's current records in turn, synced ones first, and returns the first
 * answer. A box a change is being written to still counts: until the change settles its records are current.
 */
export async function readFromCurrent<T>(
  boxes: readonly LiveBox[],
  read: (box: LiveBox) => Promise<T>,
): Promise<FirstAnswer<T>> {
  const candidates = boxes
    .filter((box) => box.recordsCurrent)
    .sort((a, b) => Number(b.state === 'synced') - Number(a.state === 'synced'))
  const errors: string[] = []
  for (const box of candidates) {
    try {
      return { ok: true, box, value: await read(box) }
    } catch (error) {
      errors.push(`${box.hostname}: ${errorText(error)}`)
    }
  }
  return { ok: false, error: errors.length ? errors.join('; ') : 'no nameserver box is synced for this zone' }
}

/** Like readFromCurrent, but a zone nobody can read answers 502. */
export async function mustReadFromCurrent<T>(
  boxes: readonly LiveBox[],
  read: (box: LiveBox) => Promise<T>,
): Promise<{ box: LiveBox; value: T }> {
  const answer = await readFromCurrent(boxes, read)
  if (!answer.ok) throw new AppError('upstream_failed', `no nameserver box answered: ${answer.error}`)
  return answer
}

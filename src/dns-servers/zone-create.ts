import { AppError } from '../rpc/errors'
import { errorText, type LiveBox } from './boxes'
import type { SyncState } from './schemas'
import { createOnBox } from './zone-sync'

export interface BoxCreate {
  box: LiveBox
  state: SyncState
  error: string | null
}

/**
 * Creates the zone on every box at once and decides each box's sync state: created is synced, down is failed
 * (a job retries it), and a box that already had the zone (409) holds unknown content, so it is pending and
 * copies from a box that created it, unless none did, when the first such box becomes the reference.
 * No box taking the zone answers 502.
 */
export async function createEverywhere(
  boxes: readonly LiveBox[],
  zone: string,
  nameservers: readonly string[],
): Promise<BoxCreate[]> {
  const attempts = await Promise.all(
    boxes.map(async (box) => {
      try {
        return { box, created: (await createOnBox(box, zone, nameservers)).created, error: null }
      } catch (error) {
        return { box, created: false, error: errorText(error) }
      }
    }),
  )
  if (attempts.every((a) => a.error !== null)) {
    const detail = attempts.map((a) => `${a.box.hostname}: ${a.error}`).join('; ')
    throw new AppError('upstream_failed', `no nameserver box took the zone (${detail})`)
  }
  const anyCreated = attempts.some((a) => a.created)
  const reference = anyCreated ? null : attempts.find((a) => a.error === null)?.box
  return attempts.map(({ box, created, error }) => ({
    box,
    error,
    state: error !== null ? 'failed' : created || box === reference ? 'synced' : 'pending',
  }))
}

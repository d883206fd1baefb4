import { env } from 'cloudflare:workers'
import { vi } from 'vitest'
import type { CallResult } from './http'

const database = (env as unknown as { DB: D1Database }).DB

/**
 * Runs `rival` right before the Worker's next D1 batch, as a concurrent request landing between a handler's
 * reads and its commit would. Later batches (the rival's own included) run untouched.
 */
export function beforeNextBatch(rival: () => Promise<unknown>): void {
  const batch = database.batch.bind(database)
  const spy = vi.spyOn(database, 'batch').mockImplementation(async (statements) => {
    spy.mockRestore()
    await rival()
    return batch(statements)
  })
}

/** Runs `rival` between `main`'s reads and its commit; answers both results. */
export async function raced(
  main: () => Promise<CallResult>,
  rival: () => Promise<CallResult>,
): Promise<{ main: CallResult; rival: CallResult }> {
  let rivalResult: CallResult | undefined
  beforeNextBatch(async () => {
    rivalResult = await rival()
  })
  const mainResult = await main()
  if (!rivalResult) throw new Error('the rival never ran')
  return { main: mainResult, rival: rivalResult }
}

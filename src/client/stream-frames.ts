import { EventStreamParser } from './event-stream.ts'
import type { FetchResponse } from './rpc-client.ts'
import type { StreamFrame } from './types.ts'

/**
 * Reads a stream procedure's Server-Sent Events: yields each `message` event's JSON data with the event id to
 * resume after, until the panel ends the stream or the signal aborts. Leaving the loop cancels the stream.
 */
export async function* readFrames(
  name: string,
  response: FetchResponse,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamFrame<unknown>, void, undefined> {
  if (!response.body) throw new Error(`${name}: the fetch in use gives no readable body to stream`)
  const reader = response.body.getReader()
  const stop = () => {
    reader.cancel().catch(() => undefined)
  }
  signal?.addEventListener('abort', stop, { once: true })
  const decoder = new TextDecoder()
  const parser = new EventStreamParser()
  try {
    for (;;) {
      const chunk = await reader.read().catch((error: unknown) => {
        if (signal?.aborted) return { done: true as const, value: undefined }
        throw error
      })
      if (chunk.done) return
      for (const event of parser.push(decoder.decode(chunk.value, { stream: true }))) {
        if (event.type !== 'message') continue
        yield { ...(JSON.parse(event.data) as object), id: event.lastEventId }
      }
    }
  } finally {
    signal?.removeEventListener('abort', stop)
    stop()
  }
}

import { EventStreamParser } from './event-stream.ts'
import type { FetchResponse } from './types.ts'

/**
 * Reads a stream procedure's Server-Sent Events: yields each `message` event's JSON data as it is, until the panel
 * ends the stream or the signal aborts. Leaving the loop cancels the stream. `onEventId` hears the id to resume
 * after once everything up to it was taken (after the loop body returns, or at once for an event with no data).
 */
export async function* readFrames(
  name: string,
  response: FetchResponse,
  signal: AbortSignal | undefined,
  onEventId: ((id: string) => void) | undefined,
): AsyncGenerator<unknown, void, undefined> {
  if (!response.body) throw new Error(`${name}: the fetch in use gives no readable body to stream`)
  const reader = response.body.getReader()
  const stop = () => {
    reader.cancel().catch(() => undefined)
  }
  signal?.addEventListener('abort', stop, { once: true })
  const decoder = new TextDecoder()
  const parser = new EventStreamParser()
  let told = ''
  const tell = (id: string) => {
    if (id === told) return
    told = id
    onEventId?.(id)
  }
  try {
    for (;;) {
      const chunk = await reader.read().catch((error: unknown) => {
        if (signal?.aborted) return { done: true as const, value: undefined }
        throw error
      })
      if (chunk.done) return
      for (const event of parser.push(decoder.decode(chunk.value, { stream: true }))) {
        if (event.type !== 'message') continue
        yield JSON.parse(event.data)
        tell(event.lastEventId)
      }
      tell(parser.lastEventId)
    }
  } finally {
    signal?.removeEventListener('abort', stop)
    stop()
  }
}

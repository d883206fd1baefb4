/** Far more than any error message; what an error body holds past this is a page or a dump, never read. */
export const ERROR_BODY_MAX_BYTES = 16 * 1024
/** Far more than any answer the panel asks a DNS provider, agent, PowerDNS box or resolver for. */
export const ANSWER_BODY_MAX_BYTES = 4 * 1024 * 1024

/** A counterpart's body as text, and whether all of it fit within the cap. */
export interface CappedText {
  text: string
  complete: boolean
}

/**
 * The one reader of a counterpart's body: at most `maxBytes` bytes, then the rest is cancelled unread. A declared
 * length over the cap reads nothing. A body cut short ends with whatever whole characters arrived.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<CappedText> {
  const body = response.body
  if (!body) return { text: '', complete: true }
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await body.cancel()
    return { text: '', complete: false }
  }
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let bytes = 0
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { text: text + decoder.decode(), complete: true }
    const room = maxBytes - bytes
    if (value.byteLength > room) {
      text += decoder.decode(value.subarray(0, room), { stream: true })
      await reader.cancel()
      return { text, complete: false }
    }
    bytes += value.byteLength
    text += decoder.decode(value, { stream: true })
  }
}

/** A counterpart's error body, cut to ERROR_BODY_MAX_BYTES: enough to find its message in. */
export async function readErrorText(response: Response): Promise<string> {
  return (await readCapped(response, ERROR_BODY_MAX_BYTES)).text
}

/** A counterpart's answer parsed as JSON; undefined when it is not JSON or is larger than `maxBytes`. */
export async function readJson(response: Response, maxBytes = ANSWER_BODY_MAX_BYTES): Promise<unknown> {
  const { text, complete } = await readCapped(response, maxBytes)
  if (!complete) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

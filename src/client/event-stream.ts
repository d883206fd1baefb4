/** One dispatched Server-Sent Event. */
export interface ServerSentEvent {
  /** `message` unless an `event:` field named it. */
  type: string
  data: string
  /** The last `id:` the stream set, kept across events as EventSource keeps it. */
  lastEventId: string
}

const LINE_END = /\r\n|\r|\n/

/** An incremental Server-Sent Events parser following the WHATWG rules: push text in, take complete events out. */
export class EventStreamParser {
  private buffer = ''
  private type = ''
  private data: string[] = []
  /** The last `id:` the stream set so far, dispatched or not. */
  lastEventId = ''
  /** The last `retry:` hint, in milliseconds; null until the stream sends one. */
  retry: number | null = null

  push(text: string): ServerSentEvent[] {
    this.buffer += text
    const events: ServerSentEvent[] = []
    for (let match = LINE_END.exec(this.buffer); match; match = LINE_END.exec(this.buffer)) {
      // A `\r` that ends the text so far may be the first half of `\r\n`: wait for the next chunk.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break
      const line = this.buffer.slice(0, match.index)
      this.buffer = this.buffer.slice(match.index + match[0].length)
      const event = this.line(line)
      if (event) events.push(event)
    }
    return events
  }

  private line(line: string): ServerSentEvent | null {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return null
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    const raw = colon === -1 ? '' : line.slice(colon + 1)
    const value = raw.startsWith(' ') ? raw.slice(1) : raw
    if (field === 'event') this.type = value
    else if (field === 'data') this.data.push(value)
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value)
    return null
  }

  private dispatch(): ServerSentEvent | null {
    const { type, data } = this
    this.type = ''
    this.data = []
    if (data.length === 0) return null
    return { type: type || 'message', data: data.join('\n'), lastEventId: this.lastEventId }
  }
}

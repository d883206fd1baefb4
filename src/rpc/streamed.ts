/** The media type of a streamed answer. */
export const EVENT_STREAM = 'text/event-stream'

/**
 * A Server-Sent Events answer. A stream procedure's handler returns one after its input and permission passed;
 * the transport then calls `open` with the request's `Last-Event-ID` and sends the stream as it is, without the
 * JSON output check; the procedure's `output` documents one event's data.
 */
export class StreamedOutput<T> {
  // Ties the stream to the frame type its procedure documents.
  declare private readonly frame: T

  constructor(readonly open: (lastEventId: string | null) => Promise<ReadableStream<Uint8Array>>) {}
}

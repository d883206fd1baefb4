/**
 * The procedures answered by a Server-Sent Events stream, by dotted name. The client imports no server code, so
 * it names them here; a test keeps this set equal to the registry's `stream` procedures.
 */
export const STREAM_PROCEDURES: ReadonlySet<string> = new Set(['probes.watch'])

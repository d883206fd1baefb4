import { beforeDeadline, type Deadline, EXPIRED } from './deadline'
import { clientHello } from './tls12-client-hello'
import { certificateValidity, type Validity } from './x509-validity'

const ALERT = 21
const HANDSHAKE = 22
const CERTIFICATE = 11
const SERVER_HELLO_DONE = 14
const MAX_RECORD = 16_384 + 2048
// A certificate chain is a few KB; a server that sends this much before its certificate is not one we can read.
const MAX_READ = 64 * 1024

const ALERTS: Record<number, string> = {
  10: 'unexpected_message',
  40: 'handshake_failure',
  47: 'illegal_parameter',
  50: 'decode_error',
  70: 'protocol_version',
  71: 'insufficient_security',
  80: 'internal_error',
  112: 'unrecognized_name',
}

type Read = Validity | { problem: string }

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length)
  joined.set(a)
  joined.set(b, a.length)
  return joined
}

const u16At = (bytes: Uint8Array, at: number) => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0)
const u24At = (bytes: Uint8Array, at: number) => ((bytes[at] ?? 0) << 16) | u16At(bytes, at + 1)

function alertProblem(description: number): string {
  const name = ALERTS[description] ?? `${description}`
  return description === 70
    ? `the server refused TLS 1.2 (alert ${name}); TLS 1.3-only servers cannot be read`
    : `the server ended the handshake (alert ${name})`
}

/**
 * Parses what the server has sent so far: the leaf's validity once its Certificate message is complete, a
 * problem when the answer cannot lead there, or null to read on.
 */
function parse(received: Uint8Array): Read | null {
  let handshake: Uint8Array = new Uint8Array(0)
  let at = 0
  while (at + 5 <= received.length) {
    const type = received[at]
    const length = u16At(received, at + 3)
    if ((type !== ALERT && type !== HANDSHAKE) || received[at + 1] !== 3 || length > MAX_RECORD)
      return { problem: "the server's answer is not TLS" }
    if (at + 5 + length > received.length) break
    const fragment = received.subarray(at + 5, at + 5 + length)
    if (type === ALERT) return { problem: alertProblem(fragment[1] ?? 0) }
    handshake = concat(handshake, fragment)
    at += 5 + length
  }
  for (let offset = 0; offset + 4 <= handshake.length; ) {
    const type = handshake[offset]
    const length = u24At(handshake, offset + 1)
    if (offset + 4 + length > handshake.length) return null
    if (type === SERVER_HELLO_DONE) return { problem: 'the server sent no certificate' }
    if (type === CERTIFICATE) {
      const leafLength = u24At(handshake, offset + 7)
      const leaf = handshake.subarray(offset + 10, offset + 10 + leafLength)
      if (length < 3 || leafLength === 0 || 10 + leafLength > 4 + length)
        return { problem: 'the server sent an empty certificate list' }
      return certificateValidity(leaf) ?? { problem: "the server's certificate could not be parsed" }
    }
    offset += 4 + length
  }
  return null
}

/**
 * Reads the leaf certificate's validity from a TLS server over an open plain TCP `socket`: sends a TLS 1.2-only
 * ClientHello (naming `serverName` in SNI) and parses the Certificate message, which TLS 1.2 sends unencrypted.
 * The certificate is not verified (an expired or untrusted one must still be read). The caller hangs up.
 */
export async function readServedValidity(
  socket: Socket,
  serverName: string | null,
  deadline: Deadline,
): Promise<Read> {
  const writer = socket.writable.getWriter()
  try {
    if ((await beforeDeadline(writer.write(clientHello(serverName)), deadline)) === EXPIRED)
      return { problem: `the server did not take the ClientHello within ${deadline.ms} ms` }
  } catch (error) {
    return { problem: `the connection failed: ${error instanceof Error ? error.message : String(error)}` }
  }
  const reader = socket.readable.getReader()
  let received: Uint8Array = new Uint8Array(0)
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array> | typeof EXPIRED
    try {
      chunk = await beforeDeadline(reader.read(), deadline)
    } catch (error) {
      return { problem: `the connection failed: ${error instanceof Error ? error.message : String(error)}` }
    }
    if (chunk === EXPIRED) return { problem: `the server sent no certificate within ${deadline.ms} ms` }
    if (chunk.done) return { problem: 'the server closed the connection before sending its certificate' }
    received = concat(received, chunk.value)
    const read = parse(received)
    if (read) return read
    if (received.length > MAX_READ)
      return { problem: "the server's answer is too large to hold a certificate" }
  }
}

// A TLS 1.2 ClientHello (RFC 5246 7.4.1.2) that offers nothing newer, so the server's Certificate message comes
// back in the clear (TLS 1.3 encrypts it). No key exchange follows: the caller hangs up after the certificate.

const u16 = (n: number) => [(n >> 8) & 0xff, n & 0xff]
const u24 = (n: number) => [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]
const vector16 = (bytes: number[]) => [...u16(bytes.length), ...bytes]
const extension = (type: number, body: number[]) => [...u16(type), ...vector16(body)]

// ECDHE (ECDSA and RSA) with AES-GCM and ChaCha20, then CBC and plain RSA suites for older servers.
const CIPHER_SUITES = [
  0xc02b, 0xc02c, 0xc02f, 0xc030, 0xcca9, 0xcca8, 0xc009, 0xc00a, 0xc013, 0xc014, 0x009c, 0x009d, 0x002f,
  0x0035,
]
// x25519, secp256r1, secp384r1.
const GROUPS = [0x001d, 0x0017, 0x0018]
// ECDSA, RSA-PSS and RSA-PKCS1 with SHA-256/384/512, then SHA-1 for old certificates.
const SIGNATURE_ALGORITHMS = [
  0x0403, 0x0503, 0x0603, 0x0804, 0x0805, 0x0806, 0x0401, 0x0501, 0x0601, 0x0203, 0x0201,
]

/** The ClientHello record; `serverName` goes in SNI (null for an IP address, which SNI may not carry). */
export function clientHello(serverName: string | null): Uint8Array {
  const name = serverName === null ? [] : [...new TextEncoder().encode(serverName)]
  const extensions = [
    ...(serverName === null ? [] : extension(0x0000, vector16([0x00, ...vector16(name)]))),
    ...extension(0x000a, vector16(GROUPS.flatMap(u16))),
    ...extension(0x000b, [0x01, 0x00]),
    ...extension(0x000d, vector16(SIGNATURE_ALGORITHMS.flatMap(u16))),
    ...extension(0x0017, []),
    ...extension(0xff01, [0x00]),
  ]
  const body = [
    0x03,
    0x03,
    ...crypto.getRandomValues(new Uint8Array(32)),
    0x00,
    ...vector16(CIPHER_SUITES.flatMap(u16)),
    0x01,
    0x00,
    ...vector16(extensions),
  ]
  const handshake = [0x01, ...u24(body.length), ...body]
  return Uint8Array.from([0x16, 0x03, 0x01, ...u16(handshake.length), ...handshake])
}

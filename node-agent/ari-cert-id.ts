import type { X509Certificate } from 'node:crypto'

// RFC 9773 §4.1: a certificate's ARI identifier is base64url(the keyIdentifier of its Authority Key Identifier)
// "." base64url(the DER content bytes of its serial number, a leading zero byte kept), without padding. Node's
// X509Certificate exposes neither as bytes (serialNumber is hex without the leading zero), so the few DER
// elements on the way are read here.

const AUTHORITY_KEY_IDENTIFIER = Buffer.from([0x55, 0x1d, 0x23]) // 2.5.29.35

interface Element {
  tag: number
  content: Buffer
  /** Where the next element at the same level starts. */
  next: number
}

function element(der: Buffer, at: number): Element {
  const tag = der[at]
  let length = der[at + 1]
  if (tag === undefined || length === undefined) throw new Error('truncated DER')
  let start = at + 2
  if (length & 0x80) {
    const bytes = length & 0x7f
    if (bytes === 0 || bytes > 4) throw new Error('unsupported DER length')
    length = der.readUIntBE(start, bytes)
    start += bytes
  }
  if (start + length > der.length) throw new Error('truncated DER')
  return { tag, content: der.subarray(start, start + length), next: start + length }
}

function children(parent: Buffer): Element[] {
  const found: Element[] = []
  for (let at = 0; at < parent.length; at = found.at(-1)?.next ?? parent.length)
    found.push(element(parent, at))
  return found
}

/** The certificate's ARI certID, or null when it has no Authority Key Identifier with a keyIdentifier. */
export function ariCertId(certificate: X509Certificate): string | null {
  const tbs = children(element(certificate.raw, 0).content)[0]
  if (!tbs) return null
  const fields = children(tbs.content)
  // tbsCertificate: [0] version (present in every v3 certificate), serialNumber, …, [3] extensions.
  const serial = fields.find((field) => field.tag === 0x02)
  const extensions = fields.find((field) => field.tag === 0xa3)
  if (!serial || !extensions) return null
  const list = children(extensions.content)[0]
  for (const extension of list ? children(list.content) : []) {
    const [id, ...rest] = children(extension.content)
    if (id?.tag !== 0x06 || !id.content.equals(AUTHORITY_KEY_IDENTIFIER)) continue
    const value = rest.find((part) => part.tag === 0x04)
    const aki = value ? children(value.content)[0] : undefined
    const keyIdentifier = aki ? children(aki.content).find((part) => part.tag === 0x80) : undefined
    if (!keyIdentifier || keyIdentifier.content.length === 0) return null
    return `${keyIdentifier.content.toString('base64url')}.${serial.content.toString('base64url')}`
  }
  return null
}

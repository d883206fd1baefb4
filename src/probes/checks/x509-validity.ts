/** A certificate's validity period (RFC 5280 4.1.2.5). */
export interface Validity {
  notBefore: Date
  notAfter: Date
}

interface Tlv {
  tag: number
  start: number
  end: number
}

const SEQUENCE = 0x30
const INTEGER = 0x02
const VERSION = 0xa0
const UTC_TIME = 0x17
const GENERALIZED_TIME = 0x18

/** The DER element at `offset`: its tag and where its contents start and end; null when it runs past `limit`. */
function element(der: Uint8Array, offset: number, limit: number): Tlv | null {
  const tag = der[offset]
  const first = der[offset + 1]
  if (tag === undefined || first === undefined) return null
  let length = first
  let start = offset + 2
  if (first & 0x80) {
    const count = first & 0x7f
    if (count < 1 || count > 3) return null
    length = 0
    for (let i = 0; i < count; i++) length = length * 256 + (der[start + i] ?? 0)
    start += count
  }
  const end = start + length
  return end <= limit ? { tag, start, end } : null
}

/** A UTCTime (YYMMDDHHMMSSZ, 1950–2049) or GeneralizedTime (YYYYMMDDHHMMSSZ) as a Date; null when malformed. */
function time(der: Uint8Array, at: Tlv | null): Date | null {
  if (at?.tag !== UTC_TIME && at?.tag !== GENERALIZED_TIME) return null
  const text = new TextDecoder().decode(der.subarray(at.start, at.end))
  const match = (
    at.tag === UTC_TIME
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/
      : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/
  ).exec(text)
  if (!match) return null
  const [year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0] = match.slice(1).map(Number)
  const fullYear = at.tag === GENERALIZED_TIME ? year : year < 50 ? 2000 + year : 1900 + year
  return new Date(Date.UTC(fullYear, month - 1, day, hour, minute, second))
}

/**
 * Reads validity from an X.509 certificate's DER: Certificate → tbsCertificate → [version], serialNumber,
 * signature, issuer, validity. Nothing else is parsed or verified. Null when the bytes are not that shape.
 */
export function certificateValidity(der: Uint8Array): Validity | null {
  const certificate = element(der, 0, der.length)
  if (certificate?.tag !== SEQUENCE) return null
  const tbs = element(der, certificate.start, certificate.end)
  if (tbs?.tag !== SEQUENCE) return null
  let next = element(der, tbs.start, tbs.end)
  if (next?.tag === VERSION) next = element(der, next.end, tbs.end)
  if (next?.tag !== INTEGER) return null
  const signature = element(der, next.end, tbs.end)
  if (signature?.tag !== SEQUENCE) return null
  const issuer = element(der, signature.end, tbs.end)
  if (issuer?.tag !== SEQUENCE) return null
  const validity = element(der, issuer.end, tbs.end)
  if (validity?.tag !== SEQUENCE) return null
  const notBeforeAt = element(der, validity.start, validity.end)
  const notBefore = time(der, notBeforeAt)
  const notAfter = notBeforeAt && time(der, element(der, notBeforeAt.end, validity.end))
  return notBefore && notAfter ? { notBefore, notAfter } : null
}

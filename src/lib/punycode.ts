// RFC 3492 decoding, enough to tell whether an `xn--` label is well-formed (the URL parser of workerd accepts
// malformed ones).
const BASE = 36
const T_MIN = 1
const T_MAX = 26
const SKEW = 38
const DAMP = 700

function adapt(delta: number, points: number, first: boolean): number {
  let d = first ? Math.floor(delta / DAMP) : delta >> 1
  d += Math.floor(d / points)
  let k = 0
  while (d > ((BASE - T_MIN) * T_MAX) >> 1) {
    d = Math.floor(d / (BASE - T_MIN))
    k += BASE
  }
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + SKEW))
}

function digitOf(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 22
  if (code >= 0x61 && code <= 0x7a) return code - 0x61
  return BASE
}

/** Decodes the part after `xn--`; null when it is not valid punycode or decodes to plain ASCII. */
export function decodePunycode(input: string): string | null {
  const cut = input.lastIndexOf('-')
  const output = [...(cut > 0 ? input.slice(0, cut) : '')].map((c) => c.codePointAt(0) ?? 0)
  let n = 128
  let bias = 72
  let i = 0
  for (let pos = cut > 0 ? cut + 1 : 0; pos < input.length; ) {
    const oldI = i
    for (let w = 1, k = BASE; ; k += BASE) {
      if (pos >= input.length) return null
      const digit = digitOf(input.charCodeAt(pos++))
      if (digit >= BASE) return null
      i += digit * w
      const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias
      if (digit < t) break
      w *= BASE - t
      if (i > 0x10ffff * 64) return null
    }
    bias = adapt(i - oldI, output.length + 1, oldI === 0)
    n += Math.floor(i / (output.length + 1))
    i %= output.length + 1
    if (n > 0x10ffff) return null
    output.splice(i++, 0, n)
  }
  if (output.every((code) => code < 128)) return null
  return String.fromCodePoint(...output)
}

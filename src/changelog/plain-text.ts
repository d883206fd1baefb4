// The named character references HTML still decodes without a `;` (the spec's legacy list): `&ltscript` is
// `<script` to a browser, while `R&D` or `AT&T` stay text.
const LEGACY_ENTITY =
  /&(?:AElig|AMP|Aacute|Acirc|Agrave|Aring|Atilde|Auml|COPY|Ccedil|ETH|Eacute|Ecirc|Egrave|Euml|GT|Iacute|Icirc|Igrave|Iuml|LT|Ntilde|Oacute|Ocirc|Ograve|Oslash|Otilde|Ouml|QUOT|REG|THORN|Uacute|Ucirc|Ugrave|Uuml|Yacute|aacute|acirc|acute|aelig|agrave|amp|aring|atilde|auml|brvbar|ccedil|cedil|cent|copy|curren|deg|divide|eacute|ecirc|egrave|eth|euml|frac12|frac14|frac34|gt|iacute|icirc|iexcl|igrave|iquest|iuml|laquo|lt|macr|micro|middot|nbsp|not|ntilde|oacute|ocirc|ograve|ordf|ordm|oslash|otilde|ouml|para|plusmn|pound|quot|raquo|reg|sect|shy|sup1|sup2|sup3|szlig|thorn|times|uacute|ucirc|ugrave|uml|uuml|yacute|yen|yuml)/

// Each rule names what it found, so a 400 tells the author what to remove.
const RULES: readonly [RegExp, string][] = [
  [/[\r\n\u0085\u2028\u2029]/, 'no line breaks'],
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rule rejects
  [/[\u0000-\u001f\u007f-\u009f]/, 'no control characters'],
  [/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/, 'no bidirectional controls'],
  [/<[a-zA-Z/!?]/, 'no HTML markup'],
  [/&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);/, 'no HTML entities'],
  // Numeric references decode without a `;` too.
  [/&#(?:\d|[xX][0-9a-fA-F])/, 'no HTML entities'],
  [LEGACY_ENTITY, 'no HTML entities'],
  [/\*\*|__|~~/, 'no markdown emphasis'],
  [/(?:^|[\s(])([*_])[^\s*_](?:[^*_]*[^\s*_])?\1(?=$|[\s).,:;!?])/, 'no markdown emphasis'],
  [/`/, 'no markdown code'],
  [/\]\(|\]\[|!\[/, 'no markdown links or images'],
  [/^\s*(?:#{1,6}|>|[-*+]|\d+[.)])\s/, 'no markdown headings, quotes or list markers'],
]

/** Why `text` is not one line of plain text (no line breaks, HTML or markdown markup), or null when it is. */
export function plainTextProblem(text: string): string | null {
  for (const [pattern, problem] of RULES) {
    if (pattern.test(text)) return `must be plain text: ${problem}`
  }
  return null
}

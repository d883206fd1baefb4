// Each rule names what it found, so a 400 tells the author what to remove.
const RULES: readonly [RegExp, string][] = [
  [/[\r\n\u2028\u2029]/, 'no line breaks'],
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rule rejects
  [/[\u0000-\u001f\u007f]/, 'no control characters'],
  [/<[a-zA-Z/!?]/, 'no HTML markup'],
  [/&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);/, 'no HTML entities'],
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

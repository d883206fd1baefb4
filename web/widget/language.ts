/** The languages the reader asked for: the tag's data-lang (a comma or space separated list), else the browser's. */
export function readerLanguages(attribute: string | undefined, browser: readonly string[]): string[] {
  const asked = (attribute ?? '').split(/[\s,]+/).filter((tag) => tag !== '')
  return asked.length > 0 ? asked : [...browser]
}

function primary(tag: string): string {
  return tag.split('-')[0] ?? tag
}

/** The best of one wanted tag's matches: exact, then the tag with subtags cut off (de-AT → de), then any region. */
function matchOne(wanted: string, available: readonly string[]): string | null {
  const lower = available.map((tag) => tag.toLowerCase())
  const subtags = wanted.toLowerCase().split('-')
  for (let length = subtags.length; length > 0; length--) {
    const index = lower.indexOf(subtags.slice(0, length).join('-'))
    if (index >= 0) return available[index] ?? null
  }
  const language = subtags[0]
  return available.find((tag) => primary(tag.toLowerCase()) === language) ?? null
}

/** The available language tag that serves the reader, in the order of the wanted tags, or null for none. */
export function pickLanguage(wanted: readonly string[], available: readonly string[]): string | null {
  for (const tag of wanted) {
    const match = matchOne(tag, available)
    if (match !== null) return match
  }
  return null
}

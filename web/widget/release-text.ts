import type { FeedRelease, ItemCategory } from './feed'
import { pickLanguage } from './language'

/** What a reader sees of a release: its translation (lang set) or its own text (lang null). */
export interface ReleaseText {
  lang: string | null
  machine: boolean
  title: string
  summary: string | null
  items: { category: ItemCategory; text: string }[]
}

/**
 * The release in the reader's language when it has a translation for it, else in its own words. A translation
 * carries no categories, so its items take them from the release's items at the same place; one whose item
 * count differs is not shown rather than mixing languages.
 */
export function releaseText(release: FeedRelease, wanted: readonly string[]): ReleaseText {
  const i18n = release.i18n ?? {}
  const lang = pickLanguage(wanted, Object.keys(i18n))
  const translation = lang === null ? undefined : i18n[lang]
  if (lang !== null && translation && translation.items.length === release.items.length) {
    return {
      lang,
      machine: translation.machine,
      title: translation.title,
      summary: translation.summary,
      items: release.items.map((item, index) => ({
        category: item.category,
        text: translation.items[index]?.text ?? item.text,
      })),
    }
  }
  return { lang: null, machine: false, title: release.title, summary: release.summary, items: release.items }
}

import type { Feed } from './feed'
import type { WidgetOptions } from './options'
import { releaseText } from './release-text'
import type { WidgetStrings } from './strings'
import { WIDGET_CSS } from './styles'

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (className) node.className = className
  // Feed text is only ever set as text: it never becomes markup.
  if (text !== undefined) node.textContent = text
  return node
}

/** Applies the styles through a constructed sheet (not blocked by a page's style-src CSP), else a <style>. */
function adoptStyles(root: ShadowRoot): void {
  try {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(WIDGET_CSS)
    root.adoptedStyleSheets = [sheet]
  } catch {
    root.append(element('style', '', WIDGET_CSS))
  }
}

function formatDate(date: string, lang: string): string {
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(
      new Date(`${date}T00:00:00Z`),
    )
  } catch {
    return date
  }
}

function releaseItem(
  release: Feed['releases'][number],
  options: WidgetOptions,
  ui: { lang: string; strings: WidgetStrings },
): HTMLLIElement {
  const shown = releaseText(release, options.languages)
  const item = element('li', 'release')
  if (shown.lang) item.lang = shown.lang
  const meta = element('p', 'meta')
  const time = element('time', '', formatDate(release.date, ui.lang))
  time.dateTime = release.date
  meta.append(element('span', 'version', release.version), ' · ', time)
  if (shown.machine) {
    const marker = element('span', 'machine', ui.strings.machine)
    marker.title = ui.strings.machineHint
    marker.lang = ui.lang
    meta.append(marker)
  }
  item.append(element(`h${options.headingLevel}` as 'h3', 'title', shown.title), meta)
  if (shown.summary) item.append(element('p', 'summary', shown.summary))
  if (shown.items.length > 0) {
    const list = element('ul', 'items')
    for (const entry of shown.items) {
      const line = element('li', '')
      const category = element('span', `category ${entry.category}`, ui.strings.categories[entry.category])
      category.lang = ui.lang
      line.append(category, entry.text)
      list.append(line)
    }
    item.append(list)
  }
  return item
}

/** Opens the widget's shadow root on its host element, styled, with an empty section to render into. */
export function mountWidget(host: HTMLElement, ui: { strings: WidgetStrings }): HTMLElement {
  const root = host.attachShadow({ mode: 'open' })
  adoptStyles(root)
  const section = element('section', 'root')
  section.setAttribute('aria-label', ui.strings.label)
  section.setAttribute('aria-busy', 'true')
  root.append(section)
  return section
}

/** Shows the feed's newest releases, in feed order, or a short note when it is empty or could not be loaded. */
export function renderFeed(
  section: HTMLElement,
  feed: Feed | null,
  options: WidgetOptions,
  ui: { lang: string; strings: WidgetStrings },
): void {
  section.removeAttribute('aria-busy')
  const releases = feed?.releases.slice(0, options.limit) ?? []
  if (releases.length === 0) {
    const note = element('p', 'note', feed ? ui.strings.empty : ui.strings.failed)
    note.lang = ui.lang
    section.replaceChildren(note)
    return
  }
  const list = element('ol', 'releases')
  for (const release of releases) list.append(releaseItem(release, options, ui))
  section.replaceChildren(list)
}

import { readerLanguages } from './language'

/** The data-* attributes of the script tag (its dataset). */
export interface WidgetAttributes {
  lang?: string
  limit?: string
  headingLevel?: string
  target?: string
}

export interface WidgetOptions {
  languages: string[]
  limit: number
  headingLevel: number
  target: string | null
}

function integerIn(value: string | undefined, min: number, max: number, fallback: number): number {
  const parsed = Number.parseInt(value ?? '', 10)
  return Number.isNaN(parsed) ? fallback : Math.min(max, Math.max(min, parsed))
}

/** The widget's settings from its script tag: data-lang, data-limit, data-heading-level and data-target. */
export function widgetOptions(
  attributes: WidgetAttributes,
  browserLanguages: readonly string[],
): WidgetOptions {
  return {
    languages: readerLanguages(attributes.lang, browserLanguages),
    limit: integerIn(attributes.limit, 1, 50, 5),
    headingLevel: integerIn(attributes.headingLevel, 2, 6, 3),
    target: attributes.target?.trim() || null,
  }
}

import { describe, expect, it } from 'vitest'
import { pickLanguage, readerLanguages } from '../../web/widget/language'
import { widgetStrings } from '../../web/widget/strings'

describe('readerLanguages', () => {
  it('should prefer the data-lang attribute, split on commas and spaces', () => {
    expect(readerLanguages('de-AT, en', ['fr'])).toEqual(['de-AT', 'en'])
  })

  it('should fall back to the browser languages when the attribute is missing or blank', () => {
    expect(readerLanguages(undefined, ['fr-CA', 'fr'])).toEqual(['fr-CA', 'fr'])
    expect(readerLanguages('  ', ['nl'])).toEqual(['nl'])
  })
})

describe('pickLanguage', () => {
  const available = ['de', 'fr-CA', 'pt-BR', 'zh-Hant']

  it('should match a tag exactly, ignoring case', () => {
    expect(pickLanguage(['PT-br'], available)).toBe('pt-BR')
  })

  it('should match a regional tag to its language (de-AT reads de)', () => {
    expect(pickLanguage(['de-AT'], available)).toBe('de')
    expect(pickLanguage(['zh-Hant-TW'], available)).toBe('zh-Hant')
  })

  it('should match a language to a regional translation when nothing closer exists', () => {
    expect(pickLanguage(['pt'], available)).toBe('pt-BR')
    expect(pickLanguage(['fr-FR'], available)).toBe('fr-CA')
  })

  it('should take the first wanted language that has any match', () => {
    expect(pickLanguage(['it', 'fr', 'de'], available)).toBe('fr-CA')
  })

  it('should prefer the closer match within one wanted language', () => {
    expect(pickLanguage(['de-CH'], ['de-AT', 'de', 'de-CH'])).toBe('de-CH')
    expect(pickLanguage(['de-CH'], ['de-AT', 'de'])).toBe('de')
  })

  it('should answer null when nothing matches', () => {
    expect(pickLanguage(['en-US'], available)).toBeNull()
    expect(pickLanguage([], available)).toBeNull()
  })
})

describe('widgetStrings', () => {
  it("should speak the reader's language when the widget knows it, else English", () => {
    expect(widgetStrings(['de-AT']).lang).toBe('de')
    expect(widgetStrings(['de-AT']).strings.machine).toBe('Maschinell übersetzt')
    expect(widgetStrings(['it', 'fr']).lang).toBe('fr')
    expect(widgetStrings(['it']).lang).toBe('en')
  })
})

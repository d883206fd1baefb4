import type { ItemCategory } from './feed'
import { pickLanguage } from './language'

/** The widget's own words (not the feed's), in one language. */
export interface WidgetStrings {
  label: string
  machine: string
  machineHint: string
  empty: string
  failed: string
  categories: Record<ItemCategory, string>
}

const EN: WidgetStrings = {
  label: "What's new",
  machine: 'Machine translation',
  machineHint: 'This text was translated automatically.',
  empty: 'No releases yet.',
  failed: 'The changelog could not be loaded.',
  categories: { new: 'New', improved: 'Improved', fixed: 'Fixed' },
}

const STRINGS: Record<string, WidgetStrings> = {
  en: EN,
  de: {
    label: 'Neuigkeiten',
    machine: 'Maschinell übersetzt',
    machineHint: 'Dieser Text wurde automatisch übersetzt.',
    empty: 'Noch keine Versionen.',
    failed: 'Das Änderungsprotokoll konnte nicht geladen werden.',
    categories: { new: 'Neu', improved: 'Verbessert', fixed: 'Behoben' },
  },
  fr: {
    label: 'Nouveautés',
    machine: 'Traduction automatique',
    machineHint: 'Ce texte a été traduit automatiquement.',
    empty: 'Aucune version pour le moment.',
    failed: "Le journal des modifications n'a pas pu être chargé.",
    categories: { new: 'Nouveau', improved: 'Amélioré', fixed: 'Corrigé' },
  },
  es: {
    label: 'Novedades',
    machine: 'Traducción automática',
    machineHint: 'Este texto se tradujo automáticamente.',
    empty: 'Todavía no hay versiones.',
    failed: 'No se pudo cargar el registro de cambios.',
    categories: { new: 'Nuevo', improved: 'Mejorado', fixed: 'Corregido' },
  },
}

/** The widget's words in the reader's language, English when it has none of theirs; with the tag used. */
export function widgetStrings(wanted: readonly string[]): { lang: string; strings: WidgetStrings } {
  const lang = pickLanguage(wanted, Object.keys(STRINGS)) ?? 'en'
  return { lang, strings: STRINGS[lang] ?? EN }
}

import { describe, expect, it } from 'vitest'
import type { FeedRelease } from '../../web/widget/feed'
import { releaseText } from '../../web/widget/release-text'

const release: FeedRelease = {
  version: '1.2.0',
  title: 'Faster deploys',
  date: '2026-11-03',
  severity: 'minor',
  summary: 'Deploys take half the time.',
  items: [
    { category: 'new', text: 'Parallel uploads' },
    { category: 'fixed', text: 'Retry on timeout' },
  ],
  i18n: {
    de: {
      title: 'Schnellere Deploys',
      summary: null,
      items: [{ text: 'Parallele Uploads' }, { text: 'Wiederholung bei Zeitüberschreitung' }],
      machine: true,
    },
    fr: {
      title: 'Déploiements plus rapides',
      summary: 'Moitié moins de temps.',
      items: [{ text: 'Envois parallèles' }],
      machine: false,
    },
  },
}

describe('releaseText', () => {
  it("should show the reader's translation with the original item categories and the machine flag", () => {
    expect(releaseText(release, ['de-AT'])).toEqual({
      lang: 'de',
      machine: true,
      title: 'Schnellere Deploys',
      summary: null,
      items: [
        { category: 'new', text: 'Parallele Uploads' },
        { category: 'fixed', text: 'Wiederholung bei Zeitüberschreitung' },
      ],
    })
  })

  it("should fall back to the release's own text when no translation matches", () => {
    expect(releaseText(release, ['it'])).toEqual({
      lang: null,
      machine: false,
      title: 'Faster deploys',
      summary: 'Deploys take half the time.',
      items: release.items,
    })
  })

  it('should fall back whole rather than mix languages when the translation has another item count', () => {
    expect(releaseText(release, ['fr'])).toMatchObject({ lang: null, title: 'Faster deploys' })
  })

  it('should fall back when the release has no i18n at all', () => {
    const { i18n: _, ...plain } = release
    expect(releaseText(plain, ['de'])).toMatchObject({ lang: null, title: 'Faster deploys', machine: false })
  })
})

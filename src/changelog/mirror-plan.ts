import { z } from '@hono/zod-openapi'
import { type PublicRelease, type PublicTranslation, toFeedRelease } from './feed'
import {
  CategorySchema,
  canonicalTag,
  DateSchema,
  ItemTextSchema,
  LanguageTagSchema,
  MAX_ITEMS,
  SeveritySchema,
  SummarySchema,
  TitleSchema,
  VersionSchema,
} from './schemas'

const MAX_MIRRORED_RELEASES = 1000

// Plain objects, not strict ones: fields a newer upstream adds are ignored, as the feed contract asks.
const UpstreamTranslationSchema = z.object({
  title: TitleSchema,
  summary: SummarySchema.nullish(),
  items: z.array(z.object({ text: ItemTextSchema })).max(MAX_ITEMS),
  machine: z.boolean(),
})

const UpstreamReleaseSchema = z.object({
  version: VersionSchema,
  title: TitleSchema,
  date: DateSchema,
  severity: SeveritySchema,
  summary: SummarySchema.nullish(),
  items: z.array(z.object({ category: CategorySchema, text: ItemTextSchema })).max(MAX_ITEMS),
  i18n: z.record(z.string(), UpstreamTranslationSchema).optional(),
})

/** Another panel's feed document as this panel accepts it: every release valid, or the whole pull is refused. */
export const UpstreamFeedSchema = z
  .object({ releases: z.array(UpstreamReleaseSchema).max(MAX_MIRRORED_RELEASES) })
  .superRefine((feed, ctx) => {
    const seen = new Set<string>()
    feed.releases.forEach((release, i) => {
      if (seen.has(release.version)) {
        ctx.addIssue({ code: 'custom', path: ['releases', i, 'version'], message: 'appears twice' })
      }
      seen.add(release.version)
      const langs = new Set<string>()
      for (const [lang, translation] of Object.entries(release.i18n ?? {})) {
        const path = ['releases', i, 'i18n', lang]
        if (!LanguageTagSchema.safeParse(lang).success) {
          ctx.addIssue({ code: 'custom', path, message: 'is not a BCP 47 language tag' })
          continue
        }
        const canonical = canonicalTag(lang)
        if (langs.has(canonical)) ctx.addIssue({ code: 'custom', path, message: 'names a language twice' })
        langs.add(canonical)
        if (translation.items.length !== release.items.length) {
          ctx.addIssue({
            code: 'custom',
            path: [...path, 'items'],
            message: 'does not align with the release items',
          })
        }
      }
    })
  })

export interface MirroredRelease {
  release: PublicRelease
  translations: PublicTranslation[]
}

/** The upstream feed's releases in this panel's terms (canonical language tags, summaries as null when absent). */
export function mirroredReleases(feed: z.output<typeof UpstreamFeedSchema>): MirroredRelease[] {
  return feed.releases.map((r) => ({
    release: {
      version: r.version,
      title: r.title,
      date: r.date,
      severity: r.severity,
      summary: r.summary ?? null,
      items: r.items.map((item) => ({ category: item.category, text: item.text })),
    },
    translations: Object.entries(r.i18n ?? {}).map(([lang, t]) => ({
      lang: canonicalTag(lang),
      title: t.title,
      summary: t.summary ?? null,
      items: t.items.map((item) => ({ text: item.text })),
      machine: t.machine,
    })),
  }))
}

/** A release this panel already holds, as the mirror compares it. */
export interface HeldRelease {
  id: string
  source: 'local' | 'mirror'
  version: string
  /** Its feed form when published. */
  feedJson: string | null
}

export interface MirrorPlan {
  insert: MirroredRelease[]
  update: { id: string; mirrored: MirroredRelease }[]
  /** Mirrored releases gone upstream. */
  remove: string[]
  /** Upstream versions a local release of this panel already uses; the local one wins. */
  skipped: string[]
}

/** Feed form as compact JSON: two releases are the same when these strings are. */
export function feedJsonOf(mirrored: MirroredRelease): string {
  return JSON.stringify(toFeedRelease(mirrored.release, mirrored.translations))
}

/** What a pull changes: add new upstream releases, rewrite changed ones, drop those gone upstream. */
export function planMirror(upstream: readonly MirroredRelease[], held: readonly HeldRelease[]): MirrorPlan {
  const byVersion = new Map(held.map((h) => [h.version, h]))
  const plan: MirrorPlan = { insert: [], update: [], remove: [], skipped: [] }
  for (const mirrored of upstream) {
    const existing = byVersion.get(mirrored.release.version)
    if (!existing) plan.insert.push(mirrored)
    else if (existing.source === 'local') plan.skipped.push(mirrored.release.version)
    else if (existing.feedJson !== feedJsonOf(mirrored)) plan.update.push({ id: existing.id, mirrored })
  }
  const upstreamVersions = new Set(upstream.map((m) => m.release.version))
  for (const h of held) {
    if (h.source === 'mirror' && !upstreamVersions.has(h.version)) plan.remove.push(h.id)
  }
  return plan
}

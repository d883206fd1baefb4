import type { Feed, FeedRelease, Translation } from './schemas'
import { compareSemver, isSemver } from './semver'

/** The fields of a release the feed shows, whatever its storage. */
export interface PublicRelease {
  version: string
  title: string
  date: string
  severity: FeedRelease['severity']
  summary: string | null
  items: FeedRelease['items']
}

export interface PublicTranslation extends Translation {
  lang: string
}

/** Translations keyed by language tag, in tag order so the same content always serialises the same way. */
export function i18nOf(translations: readonly PublicTranslation[]): Record<string, Translation> {
  const sorted = [...translations].sort((a, b) => (a.lang < b.lang ? -1 : a.lang > b.lang ? 1 : 0))
  return Object.fromEntries(
    sorted.map((t) => [
      t.lang,
      {
        title: t.title,
        summary: t.summary,
        items: t.items.map((item) => ({ text: item.text })),
        machine: t.machine,
      },
    ]),
  )
}

/** A release in feed shape: exactly its public fields, with i18n (languages in order) only when translated. */
export function toFeedRelease(
  release: PublicRelease,
  translations: readonly PublicTranslation[],
): FeedRelease {
  const feedRelease: FeedRelease = {
    version: release.version,
    title: release.title,
    date: release.date,
    severity: release.severity,
    summary: release.summary,
    items: release.items.map((item) => ({ category: item.category, text: item.text })),
  }
  if (translations.length > 0) feedRelease.i18n = i18nOf(translations)
  return feedRelease
}

/**
 * Feed order: newest publication date first; on the same date the higher semver first. Versions of equal
 * precedence (1.0.0+a and 1.0.0+b differ only in build metadata) fall back to the version string, so the order
 * never depends on the order rows were read in.
 */
export function compareFeedOrder(a: { date: string; version: string }, b: { date: string; version: string }) {
  if (a.date !== b.date) return a.date < b.date ? 1 : -1
  const precedence = compareSemver(b.version, a.version)
  if (precedence !== 0) return precedence
  return a.version === b.version ? 0 : a.version < b.version ? 1 : -1
}

/**
 * The release the running image is: the one whose version is the tag, else one of the same semver precedence
 * (the deploy script tags `1.4.0+<commit>`, and build metadata does not count), else the newest.
 */
function currentOf(imageTag: string, ordered: readonly FeedRelease[]): FeedRelease | undefined {
  const semver = isSemver(imageTag)
  return (
    ordered.find((r) => r.version === imageTag) ??
    (semver
      ? ordered.find((r) => isSemver(r.version) && compareSemver(r.version, imageTag) === 0)
      : undefined) ??
    ordered[0]
  )
}

/** The feed document: releases in feed order and the version the running image claims to be. */
export function buildFeed(imageTag: string, releases: readonly FeedRelease[]): Feed {
  const ordered = [...releases].sort(compareFeedOrder)
  const current = currentOf(imageTag, ordered)
  return { imageTag, currentVersion: current?.version ?? null, releases: ordered }
}

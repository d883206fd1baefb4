import { z } from '@hono/zod-openapi'
import { DELIVERY_STATUSES } from '../db/schema/changelog'
import { plainTextProblem } from './plain-text'
import { isSemver } from './semver'

export const VersionSchema = z
  .string()
  .max(64)
  .refine(isSemver, 'must be a valid semver version such as 1.4.0 (no leading v)')
export const SeveritySchema = z.enum(['major', 'minor', 'patch'])
export const CategorySchema = z.enum(['new', 'improved', 'fixed'])

function isCalendarDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value
}

export const DateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine(isCalendarDate, 'must be a real calendar date')

function isLanguageTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1
  } catch {
    return false
  }
}

/** The canonical spelling of a valid language tag (`pt-br` becomes `pt-BR`). */
export function canonicalTag(tag: string): string {
  return Intl.getCanonicalLocales(tag)[0] ?? tag
}

/** A BCP 47 language tag such as `de` or `pt-BR`; stored in its canonical spelling. */
export const LanguageTagSchema = z
  .string()
  .min(2)
  .max(35)
  .refine(isLanguageTag, 'must be a BCP 47 language tag such as de or pt-BR')

/** One line of plain text: trimmed, no line breaks, no HTML or markdown markup. */
function plainText(max: number) {
  return z
    .string()
    .trim()
    .min(1)
    .max(max)
    .superRefine((text, ctx) => {
      const problem = plainTextProblem(text)
      if (problem) ctx.addIssue({ code: 'custom', message: problem })
    })
}

export const TitleSchema = plainText(200)
export const SummarySchema = plainText(2000)
export const ItemTextSchema = plainText(1000)
export const MAX_ITEMS = 100

export const ItemInputSchema = z.strictObject({ category: CategorySchema, text: ItemTextSchema })
export const PhaseSchema = z
  .string()
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$/, 'must be a short identifier (letters, digits, . _ -)')

// Feed shapes: what the public sees. Nothing internal belongs here.

export const FeedItemSchema = z
  .object({ category: CategorySchema, text: z.string() })
  .openapi('ChangelogItem')

export const TranslationSchema = z
  .object({
    title: z.string(),
    summary: z.string().nullable(),
    items: z.array(z.object({ text: z.string() })),
    machine: z.boolean(),
  })
  .openapi('ChangelogTranslation')
export type Translation = z.infer<typeof TranslationSchema>

export const FeedReleaseSchema = z
  .object({
    version: z.string(),
    title: z.string(),
    date: z.string(),
    severity: SeveritySchema,
    summary: z.string().nullable(),
    items: z.array(FeedItemSchema),
    i18n: z.record(z.string(), TranslationSchema).optional(),
  })
  .openapi('ChangelogRelease')
export type FeedRelease = z.infer<typeof FeedReleaseSchema>

export const FeedSchema = z
  .object({
    imageTag: z.string(),
    currentVersion: z.string().nullable(),
    releases: z.array(FeedReleaseSchema),
  })
  .openapi('ChangelogFeed')
export type Feed = z.infer<typeof FeedSchema>

// Management shapes: what admins see.

export const ReleaseRowSchema = z
  .object({
    id: z.string(),
    version: z.string(),
    title: z.string(),
    severity: SeveritySchema,
    summary: z.string().nullable(),
    items: z.array(FeedItemSchema),
    i18n: z.record(z.string(), TranslationSchema),
    phase: z.string().nullable(),
    source: z.enum(['local', 'mirror']),
    state: z.enum(['draft', 'published']),
    date: z.string().nullable(),
    publishedAt: z.iso.datetime().nullable(),
    createdBy: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('ChangelogReleaseRow')
export type ReleaseRow = z.infer<typeof ReleaseRowSchema>

export const WebhookTargetRowSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    enabled: z.boolean(),
    hasSecret: z.literal(true),
    disabledReason: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('ChangelogWebhookTarget')
export type WebhookTargetRow = z.infer<typeof WebhookTargetRowSchema>

export const DeliveryRowSchema = z
  .object({
    id: z.string(),
    targetId: z.string(),
    releaseId: z.string(),
    version: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    lastStatusCode: z.number().int().nullable(),
    nextAttemptAt: z.iso.datetime().nullable(),
    deliveredAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('ChangelogWebhookDelivery')
export type DeliveryRow = z.infer<typeof DeliveryRowSchema>

export const MirrorStateSchema = z
  .object({
    upstream: z.string().nullable(),
    lastPulledAt: z.iso.datetime().nullable(),
    lastStatus: z.enum(['ok', 'unchanged', 'failed']).nullable(),
    lastError: z.string().nullable(),
  })
  .openapi('ChangelogMirrorState')
export type MirrorState = z.infer<typeof MirrorStateSchema>

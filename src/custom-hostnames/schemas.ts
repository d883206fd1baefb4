import { z } from '@hono/zod-openapi'
import { DiagnosisSchema } from '../diagnosis/schema'
import { hostnameSyntaxProblem } from './hostname'

export const CustomHostnameSchema = z
  .string()
  .max(253, 'must be at most 253 characters')
  .superRefine((hostname, ctx) => {
    if (hostname.length > 253) return
    const problem = hostnameSyntaxProblem(hostname)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })
  .openapi({
    description:
      'A lowercase fully qualified hostname (IDNs in punycode), no wildcard, not an IP; outside the zones the panel controls, under a public suffix',
  })

export const SiteIdSchema = z.uuid().openapi({ description: 'The site (UUID)' })

export const SiteInputSchema = z.strictObject({ siteId: SiteIdSchema })
export const SiteHostnameInputSchema = z.strictObject({
  siteId: SiteIdSchema,
  hostname: CustomHostnameSchema,
})

export const PlanItemSchema = z
  .object({
    type: z.enum(['CNAME', 'A', 'AAAA']),
    name: z.string().openapi({ description: 'Fully qualified, without the trailing dot' }),
    value: z.string(),
    ttl: z.number().int(),
  })
  .openapi('DnsRecordPlanItem')

export const TierSchema = z.enum(['hosted', 'connected', 'external'])

const InTheWaySchema = z
  .array(
    z
      .object({
        type: z.string(),
        name: z.string().openapi({ description: 'Fully qualified, without the trailing dot' }),
        value: z.string(),
      })
      .openapi('DnsRecordInTheWay'),
  )
  .optional()
  .openapi({
    description:
      'Only with reason foreign-records: the records at the name, not created by the panel, that stand in the way of the planned ones. The customer removes them (or leaves exactly the planned records), then registers again',
  })

export const ProbeResponseSchema = z
  .object({
    hostname: z.string(),
    verdict: z.enum(['auto', 'instructions', 'blocked']),
    reason: z
      .enum([
        'external-zone',
        'zone-not-allow-listed',
        'ambiguous-zone',
        'collision',
        'foreign-records',
        'site_has_no_target',
      ])
      .nullable(),
    tier: TierSchema,
    zoneName: z.string(),
    records: z.array(PlanItemSchema),
    cnameTarget: z.string(),
    registered: z.boolean(),
    inTheWay: InTheWaySchema,
  })
  .openapi('CustomHostnameProbe')

export const RegisterResponseSchema = z
  .object({
    id: z.string(),
    hostname: z.string(),
    tier: TierSchema,
    state: z.enum(['pending', 'active', 'instructions']),
    records: z.array(PlanItemSchema),
    reason: z
      .enum([
        'external-zone',
        'zone-not-allow-listed',
        'ambiguous-zone',
        'foreign-records',
        'site_has_no_target',
      ])
      .optional()
      .openapi({
        description:
          'Only when state is instructions. foreign-records: records in the way (see inTheWay); site_has_no_target: the node has no DNS target or address yet (records is empty). Register again once the cause is gone',
      }),
    inTheWay: InTheWaySchema,
  })
  .openapi('CustomHostnameRegistration')

export const CustomHostnameStateSchema = z.enum([
  'pending',
  'active',
  'instructions',
  'failed',
  'removal-manual',
  'removing',
  'removed',
])

const statusShape = {
  state: CustomHostnameStateSchema,
  tier: TierSchema,
  records: z.array(PlanItemSchema),
  dns: z.object({ resolves: z.boolean(), checkedAt: z.iso.datetime() }),
  cert: z.object({
    issued: z.boolean(),
    notAfter: z.iso.datetime().optional(),
    observedAt: z.iso.datetime().optional(),
  }),
  failureRemedy: z.string().optional().openapi({
    description: 'Only when state is failed or removal-manual: what happened and what to do',
  }),
  lastError: z.string().optional().openapi({
    description:
      'Only while a pending write is retrying: its last error and when the last try of the round runs (failed follows if that try fails too)',
  }),
}

export const StatusResponseSchema = z
  .object({
    ...statusShape,
    diagnosis: DiagnosisSchema.openapi({
      description:
        'Why it is or is not green yet: the planned records against what DNS holds, one verdict each. Reused for 30 s like dns; customHostnames.check reads anew',
    }),
  })
  .openapi('CustomHostnameStatus')
export const ListRowSchema = z
  .object({ id: z.string(), hostname: z.string(), ...statusShape })
  .openapi('CustomHostnameRow')
export type ListRow = z.infer<typeof ListRowSchema>

export const RemoveResponseSchema = z.object({ state: z.enum(['removed', 'removing']) })

export const SettingsSchema = z
  .object({
    siteId: z.string(),
    allowedZones: z.array(z.string()),
    warning: z.string().nullable(),
    askUrl: z.string().nullable(),
  })
  .openapi('CustomHostnameSettings')

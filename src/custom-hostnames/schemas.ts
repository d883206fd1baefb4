import { z } from '@hono/zod-openapi'
import { CERT_ERROR_KINDS } from '../agent-contract/certificate-attempts'
import { DiagnosisSchema } from '../diagnosis/schema'
import { hostnameSyntaxProblem } from './hostname'
import { MetadataSchema } from './metadata'

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

export const RegisterInputSchema = SiteHostnameInputSchema.extend({
  metadata: MetadataSchema.nullable().optional().openapi({
    description:
      "The app's own data on the hostname, at most 4096 bytes of UTF-8 JSON. A register again replaces the stored metadata with the given one; null clears it; absent keeps it (a retried register changes nothing). A register of a hostname being removed starts anew: absent means none",
  }),
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
    metadata: MetadataSchema.optional().openapi({ description: 'The stored metadata; absent when none' }),
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

/** What the node's Caddy last logged of a failed issuance, in the CA's words (agent 0.5.0 and later). */
export const CertLastErrorSchema = z
  .object({
    at: z.iso.datetime().openapi({ description: 'When Caddy logged the failure' }),
    kind: z.enum(CERT_ERROR_KINDS).openapi({
      description:
        "caa: the CA's CAA check refused (a CAA record does not name the node's CA). rate_limited: the CA's rate limit (retryAfter says when it lifts, when the CA said). dns: the name did not resolve for the CA. connection: the CA could not connect for HTTP-01 or TLS-ALPN-01 (refused, timed out). unauthorized: the CA reached the name but not this node's answer. other: anything else",
    }),
    problemType: z
      .string()
      .optional()
      .openapi({ description: 'The ACME problem type (urn:ietf:params:acme:error:…), when the CA gave one' }),
    detail: z.string().openapi({ description: "The problem's detail as the CA wrote it (or Caddy's error)" }),
    retryAfter: z.iso
      .datetime()
      .optional()
      .openapi({ description: 'rate_limited only: when the CA says the limit lifts' }),
  })
  .openapi('CertLastError')

/** The newest issuance attempt's fields of `cert`: absent while the last outcome is not a failure. */
export const certAttemptShape = {
  lastError: CertLastErrorSchema.optional().openapi({
    description:
      "The newest issuance attempt's failure, from the node's Caddy log; gone once a certificate is obtained",
  }),
  nextAttemptAt: z.iso.datetime().optional().openapi({
    description:
      'When Caddy tries again by itself, only where it said so and still will (an on-demand obtain retries for 180 s; after that the next HTTPS request for the name tries again)',
  }),
}

/** The CA's suggested renewal window of the certificate served (ACME ARI, agent 0.5.1). */
export const CertRenewalWindowSchema = z
  .object({
    start: z.iso.datetime(),
    end: z.iso.datetime(),
    explanationUrl: z
      .string()
      .optional()
      .openapi({ description: "The CA's page on why the window is what it is, when it gave one" }),
  })
  .openapi('CertRenewalWindow', {
    description:
      "When the CA suggests renewing the certificate served now (ACME Renewal Information, RFC 9773): only where the node's CA publishes it (Let's Encrypt does; pebble before 2.6.0 does not), as the node last read it (it asks again when the CA's Retry-After says, about every 6 hours); gone when another certificate is served, until the node reads that one's",
  })

const statusShape = {
  state: CustomHostnameStateSchema,
  tier: TierSchema,
  records: z.array(PlanItemSchema),
  dns: z.object({ resolves: z.boolean(), checkedAt: z.iso.datetime() }),
  cert: z.object({
    issued: z.boolean(),
    notAfter: z.iso.datetime().optional(),
    observedAt: z.iso.datetime().optional(),
    renewalWindow: CertRenewalWindowSchema.optional(),
    ...certAttemptShape,
  }),
  failureRemedy: z.string().optional().openapi({
    description: 'Only when state is failed or removal-manual: what happened and what to do',
  }),
  lastError: z.string().optional().openapi({
    description:
      'Only while a pending write is retrying: its last error and when the last try of the round runs (failed follows if that try fails too)',
  }),
  metadata: MetadataSchema.optional().openapi({
    description: "The app's metadata set at register; absent when none",
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
    removeStaleAfterDays: z.number().int().nullable().openapi({
      description:
        'Days after their last register at which instructions and pending hostnames whose records never appeared are removed; null: never (the default)',
    }),
  })
  .openapi('CustomHostnameSettings')

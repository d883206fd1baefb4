import { z } from '@hono/zod-openapi'

// Why a hostname is not green yet: the records the panel planned, what DNS answered for them, and one verdict
// per planned record plus one per record or zone setting that stands in the way. Shared by
// `customHostnames.status`/`check` and `domains.get`/`check` (added fields: clients ignore unknown ones).

export const ObservedRecordSchema = z
  .object({
    type: z.enum(['CNAME', 'A', 'AAAA', 'TXT', 'CAA']),
    name: z.string().openapi({ description: 'Fully qualified, without the trailing dot' }),
    value: z.string().openapi({ description: 'As a zone file writes it (a CNAME target without its dot)' }),
    ttl: z.number().int().min(0),
  })
  .openapi('DiagnosisObservedRecord')
export type ObservedRecord = z.infer<typeof ObservedRecordSchema>

export const ObservedSetSchema = z
  .object({
    source: z.enum(['resolver', 'zone']).openapi({
      description:
        "resolver: the panel's public DNS-over-HTTPS resolver; zone: the Hosted or Connected zone itself, as the panel reads it",
    }),
    readAt: z.iso.datetime(),
    rcode: z.string().nullable().openapi({
      description: 'NOERROR, NXDOMAIN, SERVFAIL, ...; null for a zone read or when no answer came',
    }),
    error: z
      .string()
      .nullable()
      .openapi({ description: 'Why nothing was read (timeout, HTTP status), else null' }),
    records: z.array(ObservedRecordSchema).openapi({
      description:
        'The CNAME chain in order from the hostname, then A and AAAA at its end, then _acme-challenge',
    }),
  })
  .openapi('DiagnosisObservedSet')
export type ObservedSet = z.infer<typeof ObservedSetSchema>

export const VERDICT_KINDS = [
  'ok',
  'missing',
  'wrong',
  'in-the-way',
  'cname-beside-others',
  'stale-acme-challenge',
  'caa-forbids',
  'dnssec-invalid',
  'resolver-failed',
] as const

export const VerdictSchema = z
  .object({
    kind: z.enum(VERDICT_KINDS).openapi({
      description:
        "ok / missing / wrong: one per expected record. in-the-way: an A or AAAA (or other record) at the name pointing elsewhere. cname-beside-others: a CNAME next to other records at the name. stale-acme-challenge: an _acme-challenge record the node did not make. caa-forbids: the CAA set (climbing to the apex) forbids the CA the node uses. dnssec-invalid: the zone's signatures do not validate. resolver-failed: no answer to judge by",
    }),
    type: z.enum(['CNAME', 'A', 'AAAA', 'TXT', 'CAA']).nullable(),
    name: z.string(),
    expected: z
      .string()
      .nullable()
      .openapi({ description: 'The planned value (ok, missing, wrong), else null' }),
    observed: z
      .array(z.string())
      .openapi({ description: 'What DNS holds at the name for this type (wrong, in-the-way, ...)' }),
    fixable: z.boolean().openapi({
      description: 'The panel writes this zone and its next write fixes this (Hosted and Connected tiers)',
    }),
    detail: z
      .string()
      .openapi({ description: 'What is wrong and, unless fixable, what to change, in plain words' }),
    add: z
      .object({ type: z.literal('CAA'), name: z.string(), value: z.string() })
      .optional()
      .openapi({ description: "caa-forbids only: the record to add that lets the node's CA issue" }),
  })
  .openapi('DiagnosisVerdict')
export type Verdict = z.infer<typeof VerdictSchema>

export const DiagnosisSchema = z
  .object({
    checkedAt: z.iso.datetime(),
    expected: z.array(
      z.object({
        type: z.enum(['CNAME', 'A', 'AAAA']),
        name: z.string(),
        value: z.string(),
        ttl: z.number().int(),
      }),
    ),
    observed: z
      .array(ObservedSetSchema)
      .openapi({ description: 'The resolver first, then the zone where the panel reads it' }),
    verdicts: z.array(VerdictSchema),
    nextCheckAfter: z.iso.datetime().openapi({
      description: 'When the answer can change: checkedAt plus the shortest TTL observed (at least 30 s)',
    }),
  })
  .openapi('Diagnosis')
export type Diagnosis = z.infer<typeof DiagnosisSchema>

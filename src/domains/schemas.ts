import { z } from '@hono/zod-openapi'
import {
  CertRenewalWindowSchema,
  CustomHostnameSchema,
  certAttemptShape,
  SiteIdSchema,
} from '../custom-hostnames/schemas'
import { CERT_STATES, DNS_STATES, DOMAIN_DRIVERS, ISSUERS } from '../db/schema/domains'
import { DiagnosisSchema } from '../diagnosis/schema'
import { NextCursorSchema } from '../lib/paging'
import { IdSchema } from '../lib/schemas'

export const DomainDriverSchema = z.enum(DOMAIN_DRIVERS).openapi({
  description:
    "manual (the customer creates the records), selfhosted (the panel writes its own nameservers), or a DNS provider (the account holding the hostname's zone; among several, the accounts cascade's default for the site)",
})
export const IssuerSchema = z.enum(ISSUERS)

export const VerificationEntrySchema = z
  .object({
    step: z.string(),
    state: z.enum(['running', 'waiting', 'passed', 'skipped', 'failed']),
    detail: z.string(),
    at: z.iso.datetime(),
  })
  .openapi('DomainVerificationEntry')

const domainShape = {
  id: z.string(),
  siteId: z.string(),
  routeId: z.string().nullable(),
  hostname: z.string(),
  driver: DomainDriverSchema,
  dnsState: z.enum(DNS_STATES),
  issuer: IssuerSchema,
  certState: z.enum(CERT_STATES),
  certExpiresAt: z.iso.datetime().nullable(),
  proxied: z.boolean(),
  failureRemedy: z.string().nullable(),
  verification: z.array(VerificationEntrySchema),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
}

export const DomainRowSchema = z.object(domainShape).openapi('DomainRow')
export type DomainRow = z.infer<typeof DomainRowSchema>

export const NextStepSchema = z
  .object({ title: z.string(), detail: z.string() })
  .nullable()
  .openapi({ description: 'A backups prompt, set only when dnsState is verified and certState issued' })

export const DomainWithNextStepSchema = z
  .object({
    ...domainShape,
    nextStep: NextStepSchema,
    cert: z.object({ renewalWindow: CertRenewalWindowSchema.optional(), ...certAttemptShape }).openapi({
      description:
        "The CA's renewal window of the certificate the domain's node serves and the newest issuance attempt there, as for a custom hostname's cert",
    }),
    diagnosis: DiagnosisSchema.openapi({
      description:
        'Why it is or is not green yet: the planned records against what DNS holds, one verdict each. Reused for 30 s; domains.check reads anew',
    }),
  })
  .openapi('DomainWithNextStep')

export const DomainListSchema = z.object({
  domains: z.array(DomainRowSchema),
  nextCursor: NextCursorSchema,
  target: z
    .string()
    .nullable()
    .openapi({ description: "The site's node DNS target (a hostname or an address)" }),
})

export const AttachInputSchema = z.strictObject({
  siteId: SiteIdSchema,
  hostname: CustomHostnameSchema,
  driver: DomainDriverSchema.optional(),
  issuer: IssuerSchema.optional(),
  proxied: z.boolean().optional(),
})

export const DriversSchema = z.object({
  drivers: z.array(z.object({ id: DomainDriverSchema, label: z.string(), supportsProxy: z.boolean() })),
  issuers: z.array(IssuerSchema),
})

/** Exactly one of `accountId` and `driver`; a clear 400 names what is missing or extra. */
export const TestCredentialsInputSchema = z
  .strictObject({ accountId: IdSchema.optional(), driver: DomainDriverSchema.optional() })
  .superRefine((value, ctx) => {
    if ((value.accountId === undefined) === (value.driver === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['accountId'],
        message: 'give exactly one of accountId and driver',
      })
  })
  .transform((value): { accountId: string } | { driver: z.infer<typeof DomainDriverSchema> } =>
    value.accountId !== undefined ? { accountId: value.accountId } : { driver: value.driver ?? 'manual' },
  )

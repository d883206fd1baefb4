import { z } from '@hono/zod-openapi'
import { NextCursorSchema } from '../lib/paging'
import { HttpUrlSchema, IdSchema, NameSchema } from '../lib/schemas'
import { DNS_PROVIDER_IDS } from '../outside/dns-providers'
import { ACCOUNT_KINDS, ALL_PROVIDERS, GIT_PROVIDERS, SSL_ISSUER_PROVIDERS } from './providers'

export const AccountKindSchema = z.enum(ACCOUNT_KINDS).openapi('AccountKind')
export const AccountProviderSchema = z.enum(ALL_PROVIDERS).openapi('AccountProvider')
export const DefaultScopeSchema = z.enum(['node', 'instance', 'domain']).openapi('AccountDefaultScope')
export type DefaultScope = z.infer<typeof DefaultScopeSchema>

export const AccountTestStateSchema = z
  .object({
    ok: z.boolean(),
    detail: z.string(),
    retryAfterSeconds: z.number().int().nullable(),
    testedAt: z.iso.datetime(),
  })
  .openapi('AccountTestState')

const timestamps = { createdAt: z.iso.datetime(), updatedAt: z.iso.datetime() }

export const DnsAccountRowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.enum(DNS_PROVIDER_IDS),
    zoneId: z.string().nullable(),
    apiBaseUrl: z.string().nullable(),
    lastTestState: AccountTestStateSchema,
    ...timestamps,
    hasToken: z.literal(true),
  })
  .openapi('DnsAccountRow')
export type DnsAccountRow = z.infer<typeof DnsAccountRowSchema>

export const GitAccountRowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.enum(GIT_PROVIDERS),
    apiBaseUrl: z.string().nullable(),
    lastTestState: AccountTestStateSchema,
    ...timestamps,
    hasToken: z.literal(true),
  })
  .openapi('GitAccountRow')

export const SslIssuerAccountRowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.enum(SSL_ISSUER_PROVIDERS),
    apiBaseUrl: z.string().nullable(),
    lastTestState: AccountTestStateSchema,
    ...timestamps,
    hasToken: z.literal(true),
  })
  .openapi('SslIssuerAccountRow')

/** A row of any kind; the provider id tells the kind apart. The token is never part of it. */
export const AccountRowSchema = z
  .union([DnsAccountRowSchema, GitAccountRowSchema, SslIssuerAccountRowSchema])
  .openapi('AccountRow')
export type AccountRow = z.infer<typeof AccountRowSchema>

// Long enough for a PEM-encoded ACME account key; the cleartext is sealed at once and never echoed.
const TokenSchema = z.string().trim().min(1).max(8192)
const ZoneIdSchema = z.string().trim().min(1).max(100)

export const CreateAccountInputSchema = z.strictObject({
  kind: AccountKindSchema,
  name: NameSchema,
  provider: AccountProviderSchema,
  token: TokenSchema,
  zoneId: ZoneIdSchema.optional(),
  apiBaseUrl: HttpUrlSchema.optional(),
})

export const UpdateAccountInputSchema = z.strictObject({
  id: IdSchema,
  name: NameSchema.optional(),
  token: TokenSchema.optional(),
  zoneId: ZoneIdSchema.nullable().optional(),
  apiBaseUrl: HttpUrlSchema.nullable().optional(),
})

export const AccountTestResultSchema = z
  .object({ ok: z.boolean(), detail: z.string() })
  .openapi('AccountTestResult')

export const AccountZonesSchema = z
  .object({
    zones: z.array(z.object({ id: z.string(), name: z.string() })),
    nextCursor: NextCursorSchema,
    refreshedAt: z.iso.datetime().nullable(),
  })
  .openapi('AccountZones')

export const SetDefaultInputSchema = z.strictObject({
  scope: DefaultScopeSchema,
  scopeId: IdSchema,
  kind: AccountKindSchema,
  accountId: IdSchema.nullable(),
})

export const AccountDefaultSchema = z
  .object({
    scope: DefaultScopeSchema,
    scopeId: z.string(),
    kind: AccountKindSchema,
    accountId: z.string().nullable(),
  })
  .openapi('AccountDefault')

/** Names exactly one of nodeId, instanceId and domainId; the handler receives it as one cascade target. */
export const ResolveInputSchema = z
  .strictObject({
    kind: AccountKindSchema,
    nodeId: IdSchema.optional(),
    instanceId: IdSchema.optional(),
    domainId: IdSchema.optional(),
  })
  .transform(({ kind, nodeId, instanceId, domainId }, ctx) => {
    const given: { field: string; target: CascadeTarget }[] = [
      ...(nodeId ? [{ field: 'nodeId', target: { nodeId } }] : []),
      ...(instanceId ? [{ field: 'instanceId', target: { instanceId } }] : []),
      ...(domainId ? [{ field: 'domainId', target: { domainId } }] : []),
    ]
    const [first, second] = given
    if (first && !second) return { kind, target: first.target }
    ctx.issues.push({
      code: 'custom',
      input: { nodeId, instanceId, domainId },
      // Too many: name the first one that should go; none: name the first field that could be given.
      path: [second ? second.field : 'nodeId'],
      message: 'give exactly one of nodeId, instanceId and domainId',
    })
    return z.NEVER
  })

export const ResolvedAccountSchema = z
  .object({ account: AccountRowSchema.nullable(), source: DefaultScopeSchema.nullable() })
  .openapi('ResolvedAccount')

/** What an account default cascades to: a domain, an instance or a node. */
export type CascadeTarget = { domainId: string } | { instanceId: string } | { nodeId: string }

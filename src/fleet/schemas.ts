import { z } from '@hono/zod-openapi'
import { HostnameSchema, HttpUrlSchema, NameSchema } from '../lib/schemas'

export const NodeRoleSchema = z.enum(['host', 'nameserver'])
const RolesSchema = z.union([z.tuple([z.literal('host')]), z.tuple([z.literal('nameserver')])])

export const NodeHealthSchema = z
  .object({
    /**
     * `ok`: the agent answered the last check and its proxy is reachable; `unreachable`: it did not answer, or
     * its proxy did not (see `error`); `refusing`: it answers but refused the node's newest config (the refusal
     * in `error`); `unknown`: never checked yet.
     */
    state: z.enum(['ok', 'unreachable', 'refusing', 'unknown']),
    /** The minute of the last check. */
    checkedAt: z.iso.datetime().nullable(),
    /** When the agent last answered a check. */
    lastSeenAt: z.iso.datetime().nullable(),
    agentVersion: z.string().nullable(),
    /** The configVersion the agent said it serves at its last answer. */
    appliedConfigVersion: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .openapi('NodeHealth')
export type NodeHealth = z.infer<typeof NodeHealthSchema>

export const NodeRowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    roles: z.array(NodeRoleSchema),
    agentUrl: z.string(),
    agentHostname: z.string().nullable(),
    hasAgentSecret: z.literal(true),
    publicIpv4: z.string().nullable(),
    publicIpv6: z.string().nullable(),
    dnsTarget: z.string().nullable(),
    /** The private ranges checks located on this node may reach (see probes: the node rule). */
    checkAllowCidrs: z.array(z.string()),
    health: NodeHealthSchema,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('NodeRow')
export type NodeRow = z.infer<typeof NodeRowSchema>

/** A name the node's Caddy can serve the agent under: a lowercase DNS name of two labels or more, no final dot. */
const AgentHostnameSchema = z
  .string()
  .max(253)
  .regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/, {
    message: 'must be a lowercase DNS name of at least two labels, without a final dot',
  })

export const NodeFieldsSchema = z.strictObject({
  name: NameSchema,
  roles: RolesSchema.optional(),
  agentUrl: HttpUrlSchema,
  agentHostname: AgentHostnameSchema.nullable().optional(),
  agentSecret: z.string().min(16, 'must be at least 16 characters').max(512),
  publicIpv4: z.ipv4().nullable().optional(),
  publicIpv6: z.ipv6().nullable().optional(),
  dnsTarget: z.union([z.ipv4(), z.ipv6(), HostnameSchema]).nullable().optional(),
  checkAllowCidrs: z
    .array(z.string().min(1).max(64))
    .max(64)
    .optional()
    .describe(
      'Private ranges (CIDRs inside 10/8, 172.16/12, 192.168/16, 100.64/10 or fc00::/7) that checks located on this node may reach; none by default',
    ),
})

export const InstanceRowSchema = z
  .object({
    id: z.string(),
    nodeId: z.string(),
    name: z.string(),
    address: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('InstanceRow')

export const SiteRowSchema = z
  .object({
    id: z.uuid(),
    instanceId: z.string(),
    name: z.string(),
    port: z.number().int().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('SiteRow')

import { z } from '@hono/zod-openapi'
import { ForwardSchema, VhostSchema } from '../agent-contract/v1'
import { IdSchema } from '../lib/schemas'

const PortSchema = z.number().int().min(1).max(65535)
export const ProtoSchema = z.enum(['tcp', 'udp'])

export const RouteEdgeConfigSchema = z
  .object({
    vhost: VhostSchema.nullable(),
    forward: ForwardSchema.nullable(),
    appliedVersion: z.number().int().nullable(),
    firewallManaged: z.boolean().nullable(),
    error: z.string().nullable(),
  })
  .openapi('RouteEdgeConfig')

export const RouteRowSchema = z
  .object({
    id: z.string(),
    instanceId: z.string(),
    siteId: z.string().nullable(),
    kind: z.enum(['http', 'raw']),
    hostname: z.string().nullable(),
    targetPort: z.number().int(),
    listenPort: z.number().int().nullable(),
    proto: ProtoSchema.nullable(),
    deviceName: z.string().nullable(),
    edgeConfig: RouteEdgeConfigSchema,
    status: z.enum(['pending', 'active', 'error', 'removed']),
    configVersion: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('RouteRow')
export type RouteRow = z.infer<typeof RouteRowSchema>

export const CreateRawInputSchema = z.strictObject({
  instanceId: IdSchema,
  siteId: IdSchema.optional(),
  listenPort: PortSchema,
  targetPort: PortSchema,
  proto: ProtoSchema.optional(),
})

export const ReconcileEnqueuedSchema = z.object({ reconcileEnqueued: z.literal(true), nodeId: z.string() })
export const RouteRemovedSchema = z.object({ removed: z.boolean(), reconcileEnqueued: z.literal(true) })

import { z } from '@hono/zod-openapi'
import { and, count, desc, eq, not, sql } from 'drizzle-orm'
import { commitGuarded, failUnless } from '../db/batch-guard'
import type { Db } from '../db/client'
import { instances, nodes, sites } from '../db/schema/fleet'
import { IdInputSchema, IdSchema, NameSchema, RemovedSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { conflict } from '../rpc/errors'
import { getInstance, getNode, type InstanceRecord, toInstanceRow } from './rows'
import { InstanceRowSchema } from './schemas'

/** Inserts the instance only while its node exists and is no nameserver, decided in the same statement. */
function insertOnHostNode(db: Db, instance: InstanceRecord) {
  const isNameserver = sql`exists (select 1 from json_each(${nodes.roles}) where value = 'nameserver')`
  return db.insert(instances).select(
    db
      .select({
        id: sql<string>`${instance.id}`.as('id'),
        nodeId: nodes.id,
        name: sql<string>`${instance.name}`.as('name'),
        address: sql<string>`${instance.address}`.as('address'),
        createdAt: sql<Date>`${instance.createdAt.getTime()}`.as('created_at'),
        updatedAt: sql<Date>`${instance.updatedAt.getTime()}`.as('updated_at'),
      })
      .from(nodes)
      .where(and(eq(nodes.id, instance.nodeId), not(isNameserver))),
  )
}

export const instancesProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'fleet:manage',
    audit: 'instance.create',
    summary: 'Create an instance on a host node',
    input: z.strictObject({
      nodeId: IdSchema,
      name: NameSchema,
      address: z.string().trim().min(1).max(255),
    }),
    output: InstanceRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const node = await getNode(ctx.db, input.nodeId)
      if (node.roles.includes('nameserver')) throw conflict('a nameserver node cannot host instances')
      const [taken] = await ctx.db
        .select({ id: instances.id })
        .from(instances)
        .where(and(eq(instances.nodeId, node.id), eq(instances.name, input.name)))
        .limit(1)
      if (taken) throw conflict(`node ${node.name} already has an instance named ${input.name}`)
      const now = new Date()
      const instance: InstanceRecord = { id: crypto.randomUUID(), ...input, createdAt: now, updatedAt: now }
      await commitGuarded(
        ctx.commit([insertOnHostNode(ctx.db, instance), failUnless(ctx.db, sql`changes() = 1`)], {
          targetId: instance.id,
          detail: { nodeId: node.id, name: instance.name },
        }),
        async () => {
          const current = await getNode(ctx.db, node.id)
          return conflict(
            current.roles.includes('nameserver')
              ? 'a nameserver node cannot host instances'
              : `node ${node.name} changed while this instance was created; retry`,
          )
        },
      )
      return toInstanceRow(instance)
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'fleet:view',
    summary: 'List instances, newest first, optionally of one node',
    input: z.strictObject({ nodeId: IdSchema.optional() }),
    output: z.array(InstanceRowSchema),
    async handler(input, ctx) {
      const rows = await ctx.db
        .select()
        .from(instances)
        .where(input.nodeId ? eq(instances.nodeId, input.nodeId) : undefined)
        .orderBy(desc(instances.createdAt), desc(sql`rowid`))
      return rows.map(toInstanceRow)
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'fleet:view',
    summary: 'Get an instance',
    input: IdInputSchema,
    output: InstanceRowSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      return toInstanceRow(await getInstance(ctx.db, input.id))
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'fleet:manage',
    audit: 'instance.remove',
    summary: 'Remove an instance that has no sites',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const instance = await getInstance(ctx.db, input.id)
      const [row] = await ctx.db.select({ n: count() }).from(sites).where(eq(sites.instanceId, instance.id))
      if ((row?.n ?? 0) > 0) throw conflict('remove the sites on this instance first')
      await ctx.commit([ctx.db.delete(instances).where(eq(instances.id, instance.id))], {
        targetId: instance.id,
        detail: { name: instance.name },
      })
      return { removed: true as const }
    },
  }),
}

import { z } from '@hono/zod-openapi'
import { and, count, eq, ne, not, sql } from 'drizzle-orm'
import { commitGuarded, failUnless, nextUpdatedAt } from '../db/batch-guard'
import type { Db } from '../db/client'
import { isConstraintError } from '../db/constraint-error'
import { instances, nodes, sites } from '../db/schema/fleet'
import { routes } from '../db/schema/routes'
import { afterCursor, newestFirst, orderTerms, pageInput, rowsOfPage } from '../lib/paging'
import { IdInputSchema, IdSchema, NameSchema, RemovedSchema } from '../lib/schemas'
import { rerenderUpstreams } from '../routes/upstreams'
import { enqueueReconcile } from '../routes/versions'
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

const AddressSchema = z.string().trim().min(1).max(255)

/** 409 when another instance of the node (any but `exceptId`) already has this name. */
async function assertInstanceNameFree(db: Db, nodeId: string, name: string, exceptId = ''): Promise<void> {
  const [taken] = await db
    .select({ id: instances.id })
    .from(instances)
    .where(and(eq(instances.nodeId, nodeId), eq(instances.name, name), ne(instances.id, exceptId)))
    .limit(1)
  if (taken) throw conflict(`the node already has an instance named ${name}`)
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
      address: AddressSchema,
    }),
    output: InstanceRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const node = await getNode(ctx.db, input.nodeId)
      if (node.roles.includes('nameserver')) throw conflict('a nameserver node cannot host instances')
      await assertInstanceNameFree(ctx.db, node.id, input.name)
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
    summary:
      'List instances, newest first, optionally of one node; page with limit and cursor (the id of the last row you hold)',
    input: z.strictObject({ nodeId: IdSchema.optional(), ...pageInput }),
    output: z.array(InstanceRowSchema),
    async handler(input, ctx) {
      const scope = input.nodeId ? eq(instances.nodeId, input.nodeId) : undefined
      const list = {
        table: instances,
        id: instances.id,
        order: newestFirst(instances, instances.createdAt),
        scope,
      }
      const rows = await ctx.db
        .select()
        .from(instances)
        .where(and(scope, await afterCursor(ctx.db, list, input.cursor)))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPage(input.limit))
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
  update: procedure({
    kind: 'mutation',
    permission: 'fleet:manage',
    audit: 'instance.update',
    summary:
      "Change an instance's name or address; a new address re-renders every route targeting it and pushes its node",
    input: z.strictObject({ id: IdSchema, name: NameSchema.optional(), address: AddressSchema.optional() }),
    output: InstanceRowSchema,
    errors: ['not_found', 'conflict'],
    async handler({ id, ...fields }, ctx) {
      const instance = await getInstance(ctx.db, id)
      if (fields.name !== undefined) await assertInstanceNameFree(ctx.db, instance.nodeId, fields.name, id)
      const moved = fields.address !== undefined && fields.address !== instance.address
      const next: InstanceRecord = {
        ...instance,
        ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
        updatedAt: nextUpdatedAt(instance.updatedAt, new Date()),
      }
      try {
        await commitGuarded(
          ctx.commit(
            [
              ctx.db
                .update(instances)
                .set({ name: next.name, address: next.address, updatedAt: next.updatedAt })
                .where(and(eq(instances.id, id), eq(instances.updatedAt, instance.updatedAt))),
              failUnless(ctx.db, sql`changes() = 1`),
              ...(moved
                ? rerenderUpstreams(ctx.db, instance.nodeId, eq(routes.instanceId, id), next.updatedAt)
                : []),
            ],
            { targetId: id, detail: { fields: Object.keys(fields) } },
          ),
          async () => {
            await getInstance(ctx.db, id)
            return conflict(
              `instance ${instance.name} changed while this update ran; read it again and retry`,
            )
          },
        )
      } catch (error) {
        if (isConstraintError(error, 'UNIQUE'))
          throw conflict(`the node already has an instance named ${fields.name}`)
        throw error
      }
      if (moved) await enqueueReconcile(ctx.env, instance.nodeId)
      return toInstanceRow(next)
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

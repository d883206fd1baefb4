import { z } from '@hono/zod-openapi'
import { eq } from 'drizzle-orm'
import { nameservers } from '../../db/schema/dns-servers'
import { pageInput } from '../../lib/paging'
import { IdInputSchema, RemovedSchema } from '../../lib/schemas'
import { procedure } from '../../rpc/define'
import { publicLookup } from '../lookup'
import { getNameserverBox, pageNameserverBoxes, toNameserverRow } from '../rows'
import { EnrollNameserverSchema, GlueCheckSchema, NameserverRowSchema } from '../schemas'
import { glueCheck } from '../zones/delegation'
import { enrollNameserver } from './enroll'
import { installOnBox } from './install-powerdns'
import { removeNameserver } from './remove'

export const nameserverProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary:
      'List nameserver boxes with their NS-health, by hostname; page with limit and cursor (the id of the last box you hold)',
    input: z.strictObject({ ...pageInput }),
    output: z.array(NameserverRowSchema),
    async handler(input, ctx) {
      return (await pageNameserverBoxes(ctx.db, input)).map(toNameserverRow)
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary: 'Get a nameserver box',
    input: IdInputSchema,
    output: NameserverRowSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      return toNameserverRow(await getNameserverBox(ctx.db, input.id))
    },
  }),
  enroll: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'nameserver.enroll',
    summary: 'Enroll a node with the nameserver role, optionally adopting a PowerDNS that already runs on it',
    input: EnrollNameserverSchema,
    output: NameserverRowSchema,
    errors: ['conflict', 'upstream_failed'],
    handler(input, ctx) {
      return enrollNameserver(ctx, input)
    },
  }),
  installPowerDns: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'nameserver.install-powerdns',
    summary: "Ask the box's node agent to install PowerDNS; the panel keeps its API address and a fresh key",
    input: IdInputSchema,
    output: NameserverRowSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    handler(input, ctx) {
      return installOnBox(ctx, input.id)
    },
  }),
  verifyGlue: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'nameserver.verify-glue',
    summary:
      "Check that the box's host name resolves to its addresses, and record the result as its NS-health",
    input: IdInputSchema,
    output: GlueCheckSchema,
    errors: ['not_found', 'upstream_failed'],
    async handler(input, ctx) {
      const { node, nameserver } = await getNameserverBox(ctx.db, input.id)
      const [v4, v6] = await Promise.all([
        publicLookup(ctx.env, nameserver.hostname, 'A'),
        publicLookup(ctx.env, nameserver.hostname, 'AAAA'),
      ])
      const addresses = [node.publicIpv4, node.publicIpv6].filter((a): a is string => a !== null)
      const check = glueCheck(nameserver.hostname, addresses, v4, v6)
      const checkedAt = new Date()
      await ctx.commit(
        [
          ctx.db
            .update(nameservers)
            .set({ healthCheckedAt: checkedAt, healthOk: check.ok, healthDetail: check.detail })
            .where(eq(nameservers.nodeId, node.id)),
        ],
        { targetId: node.id, detail: { ok: check.ok } },
      )
      return { ...check, checkedAt: checkedAt.toISOString() }
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'nameserver.remove',
    summary: 'Remove a nameserver box from the panel; its PowerDNS and data stay on the machine',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      await removeNameserver(ctx, input.id)
      return { removed: true as const }
    },
  }),
}

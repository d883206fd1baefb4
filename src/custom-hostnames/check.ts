import { primeAgain } from '../diagnosis/prime-again'
import { reconcileNodeOfHostname } from '../routes/reconcile-node'
import type { ProcedureContext } from '../rpc/define'
import { customHostnameIssuable } from './issuable'
import { spendHostnameCall } from './rate-limits'
import { getCustomHostname, toStatus } from './rows'
import { firstResolved, lookUp, storeLookupWrite, withLookup } from './status'

/**
 * customHostnames.check: reads DNS now (bypassing the 30 s reuse), stores the answer as status would and
 * answers status with it. When the records are now right, the name may be issued and no certificate is served
 * yet, the node is asked to try issuance again.
 */
export async function checkCustomHostname(
  input: { siteId: string; hostname: string },
  ctx: ProcedureContext,
) {
  await spendHostnameCall(ctx.env, ctx.principal, 'status', ctx.waitUntil)
  const { row, observation, attempt } = await getCustomHostname(ctx.db, input.siteId, input.hostname)
  const looked = await lookUp(ctx.db, ctx.env, row)
  const [stored] = (await ctx.commit([storeLookupWrite(ctx.db, row, looked)], {
    targetId: row.id,
    detail: { hostname: row.hostname, siteId: row.siteId, resolves: looked.resolves },
  })) as [{ dnsResolvedAt: Date | null }[]]
  const checked = withLookup(row, looked)
  if (firstResolved(row, looked, stored)) await reconcileNodeOfHostname(ctx.env, ctx.db, row.hostname)
  if (looked.resolves && !observation && customHostnameIssuable(checked))
    ctx.waitUntil(primeAgain(ctx.env, ctx.db, row))
  return {
    ...toStatus(checked, observation, attempt, ctx.principal.kind !== 'site-token'),
    diagnosis: looked.diagnosis,
  }
}

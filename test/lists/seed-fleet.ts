import { asArray, cloneRow, ids, type SeedContext, TIED_TIMES } from './seed-kit'

/** Nodes, instances and sites. */
export async function seedFleetLists({ site, newest }: SeedContext): Promise<void> {
  const nodeIds = ids('node')
  await cloneRow(
    'nodes',
    { column: 'id', value: site.nodeId },
    nodeIds.map((id, i) => ({ id, name: `lists-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('nodes.list', nodeIds, { shape: 'array', rowsOf: asArray })

  const instanceIds = ids('instance')
  await cloneRow(
    'instances',
    { column: 'id', value: site.instanceId },
    instanceIds.map((id, i) => ({ id, name: `lists-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('instances.list', instanceIds, { input: { nodeId: site.nodeId }, shape: 'array', rowsOf: asArray })

  const siteIds = ids('site')
  await cloneRow(
    'sites',
    { column: 'id', value: site.siteId },
    siteIds.map((id, i) => ({ id, name: `lists-${id}`, created_at: TIED_TIMES[i] })),
  )
  newest('sites.list', siteIds, { input: { instanceId: site.instanceId }, shape: 'array', rowsOf: asArray })
}

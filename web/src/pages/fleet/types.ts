import type { api } from '../../api'

export type NodeRow = Awaited<ReturnType<typeof api.nodes.list>>[number]
export type InstanceRow = Awaited<ReturnType<typeof api.instances.list>>[number]
export type SiteRow = Awaited<ReturnType<typeof api.sites.list>>[number]
type NodeCreate = Parameters<typeof api.nodes.create>[0]
type NodeUpdate = Parameters<typeof api.nodes.update>[0]

/** What the node form asks for: a new node, or the changed fields of one. */
export type NodeSave = { kind: 'create'; input: NodeCreate } | { kind: 'update'; input: NodeUpdate }

import type { api } from '../../api'

export type SiteRow = Awaited<ReturnType<typeof api.sites.get>>
export type DomainRow = Awaited<ReturnType<typeof api.domains.list>>['domains'][number]
export type DomainDetail = Awaited<ReturnType<typeof api.domains.get>>
export type DriversInfo = Awaited<ReturnType<typeof api.domains.drivers>>
export type AttachInput = Parameters<typeof api.domains.attach>[0]
export type RouteRow = Awaited<ReturnType<typeof api.routes.listForSite>>[number]
export type HostnameRow = Awaited<ReturnType<typeof api.customHostnames.list>>['hostnames'][number]
export type HostnameCheck = Awaited<ReturnType<typeof api.customHostnames.check>>
export type Diagnosis = HostnameCheck['diagnosis']
export type ProbeResult = Awaited<ReturnType<typeof api.customHostnames.probe>>
export type DnsRecord = HostnameRow['records'][number]
export type SiteTokenPermission = Parameters<typeof api.sites.tokens.create>[0]['permissions'] extends
  | (infer P)[]
  | undefined
  ? P
  : never

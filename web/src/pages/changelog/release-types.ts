import type { Procedures } from 'hosting-panel-api/client'

export type Release = Procedures['changelog']['releases']['get']['output']
export type ReleaseItem = Release['items'][number]
export type Severity = Release['severity']
export type Webhook = Procedures['changelog']['webhooks']['list']['output'][number]
export type Delivery = Procedures['changelog']['webhooks']['deliveries']['output'][number]
export type Mirror = Procedures['changelog']['mirror']['get']['output']

export const SEVERITIES: readonly Severity[] = ['major', 'minor', 'patch']
export const CATEGORIES: readonly ReleaseItem['category'][] = ['new', 'improved', 'fixed']

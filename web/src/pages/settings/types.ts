import type { Api } from '../../api'

export type NotificationSettings = Awaited<ReturnType<Api['settings']['notifications']['get']>>
export type NotificationDelivery = Awaited<
  ReturnType<Api['settings']['notifications']['deliveries']>
>['deliveries'][number]

export const SETTINGS_KEY = ['settings.notifications.get']
export const DELIVERIES_KEY = ['settings.notifications.deliveries']

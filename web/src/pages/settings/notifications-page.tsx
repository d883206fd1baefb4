import { useQuery } from '@tanstack/react-query'
import { api } from '../../api'
import { ChannelNames } from '../../components/channel-picker'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { DeliveriesLog } from './deliveries-log'
import { NotificationsForm } from './notifications-form'
import { SETTINGS_KEY } from './types'

/** Settings → Notifications: who hears of operational problems, and what was sent. */
export function NotificationsPage() {
  const { can } = useSession()
  const settings = useQuery({ queryKey: SETTINGS_KEY, queryFn: () => api.settings.notifications.get({}) })
  const data = settings.data
  return (
    <>
      <h1>Notifications</h1>
      <p>
        Who is told when a domain or custom hostname fails, a nameserver stays out of sync for 10 minutes, a
        node turns unhealthy or a job is dead-lettered, and again when it is resolved.
      </p>
      <QueryProblem error={settings.error} what="the notification setting" />
      {data && can('settings:edit') && <NotificationsForm settings={data} />}
      {data && !can('settings:edit') && (
        <section aria-labelledby="recipients-heading">
          <h2 id="recipients-heading">Recipients</h2>
          <p>Email: {data.emails.length > 0 ? data.emails.join(', ') : 'none'}</p>
          <p>
            Channels: <ChannelNames ids={data.channels} />
          </p>
          <p>
            Webhook: {data.webhook ? <code>{data.webhook.url}</code> : 'none'} · cooldown{' '}
            {data.cooldownMinutes} minutes · at most {data.maxPerHour} an hour
          </p>
        </section>
      )}
      <DeliveriesLog />
    </>
  )
}

import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, errorText } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import type { ChannelKindName } from './channel-fields'
import { KIND_LABELS } from './channel-fields'
import { CHANNELS_KEY, CreateChannelForm } from './create-channel-form'
import { MonitoringTabs } from './monitoring-tabs'
import { testAnswerText } from './test-answer'

type Channel = Awaited<ReturnType<typeof api.notifications.channels.list>>['channels'][number]

/** A channel's row: what it is, and for probes:manage the test button (showing the answer) and remove. */
function ChannelRow({ channel, manage }: { channel: Channel; manage: boolean }) {
  const queryClient = useQueryClient()
  const [answer, setAnswer] = useState<string | null>(null)
  const test = useMutation({
    mutationFn: () => api.notifications.channels.test({ id: channel.id }),
    onSuccess: (result) => setAnswer(testAnswerText(result)),
    onError: (error) => setAnswer(errorText(error)),
  })
  const remove = useMutation({
    mutationFn: () => api.notifications.channels.remove({ id: channel.id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: CHANNELS_KEY }),
    onError: (error) => setAnswer(errorText(error)),
  })
  return (
    <tr data-channel={channel.id}>
      <td>{channel.name}</td>
      <td>{KIND_LABELS[channel.kind as ChannelKindName] ?? channel.kind}</td>
      <td>
        <code>{channel.target}</code>
      </td>
      <td>
        <code>{channel.id}</code>
      </td>
      {manage && (
        <td>
          <button
            type="button"
            className="secondary"
            disabled={test.isPending}
            onClick={() => test.mutate()}
            aria-label={`Send a test to ${channel.name}`}
          >
            Send a test
          </button>{' '}
          <ConfirmButton
            label={`Remove ${channel.name}`}
            confirmLabel={`Yes, remove ${channel.name}`}
            text="Remove"
            confirmText="Yes, remove"
            onConfirm={() => remove.mutate()}
            pending={remove.isPending}
          />
          {answer && (
            <p role="status" className="note">
              {answer}
            </p>
          )}
        </td>
      )}
    </tr>
  )
}

/** Monitoring → Channels: where probe alerts go (Slack, Discord, Telegram, ntfy, PagerDuty, webhook, email). */
export function ChannelsPage() {
  const { can } = useSession()
  const manage = can('probes:manage')
  const list = useInfiniteQuery({
    queryKey: CHANNELS_KEY,
    queryFn: ({ pageParam }) =>
      api.notifications.channels.list(pageParam ? { limit: 100, cursor: pageParam } : { limit: 100 }),
    initialPageParam: '',
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  })
  const channels = list.data?.pages.flatMap((page) => page.channels) ?? []
  return (
    <section>
      <h1>Notification channels</h1>
      <MonitoringTabs />
      <p>
        A channel is a place alerts are sent: a Slack or Discord channel, a Telegram chat, an ntfy topic,
        PagerDuty, a webhook or an email address. Pick channels in a probe's settings to be told when it goes
        down and comes back, or under Notifications (the panel's own alerts about nodes, domains and jobs).
        "Send a test" sends a test message now and shows what the service answered. Tokens and other secrets
        are stored encrypted and never shown again.
      </p>
      <QueryProblem error={list.error} what="the channels" />
      {list.data && channels.length === 0 && <p>No channels yet.</p>}
      {channels.length > 0 && (
        <table>
          <caption className="visually-hidden">Notification channels, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Sends to</th>
              <th scope="col">Id</th>
              {manage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {channels.map((channel) => (
              <ChannelRow key={channel.id} channel={channel} manage={manage} />
            ))}
          </tbody>
        </table>
      )}
      {list.hasNextPage && (
        <button
          type="button"
          className="secondary"
          disabled={list.isFetchingNextPage}
          onClick={() => void list.fetchNextPage()}
        >
          Load more
        </button>
      )}
      {manage && <CreateChannelForm />}
    </section>
  )
}

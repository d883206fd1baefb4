import { useQuery } from '@tanstack/react-query'
import { Link } from 'wouter'
import { api, errorText, problemOf } from '../api'
import { PAGE_SIZE } from '../paged-list'
import { type ChannelKindName, KIND_LABELS } from '../pages/monitoring/channel-fields'
import { useSession } from '../session'

type ChannelPage = Awaited<ReturnType<typeof api.notifications.channels.list>>
type Channel = ChannelPage['channels'][number]

/** How many channels a probe or the operational setting may name. */
const MAX_PICKS = 10

// Under the channels page's key, so adding or removing a channel there refreshes every picker.
const ALL_CHANNELS_KEY = ['notifications.channels', 'all'] as const

/** Every channel, sorted by name: the list is read page by page (cursor) to its end. */
async function allChannels(): Promise<Channel[]> {
  const channels: Channel[] = []
  let cursor: string | null = null
  do {
    const page: ChannelPage = await api.notifications.channels.list(
      cursor === null ? { limit: PAGE_SIZE } : { limit: PAGE_SIZE, cursor },
    )
    channels.push(...page.channels)
    cursor = page.nextCursor
  } while (cursor !== null)
  return channels.sort((a, b) => a.name.localeCompare(b.name))
}

/** The channels, when the principal may list them (probes:view); a refusal is not retried. */
export function useChannels() {
  const { can } = useSession()
  return useQuery({
    queryKey: ALL_CHANNELS_KEY,
    queryFn: allChannels,
    enabled: can('probes:view'),
    retry: (count, error) => problemOf(error)?.code !== 'forbidden' && count < 2,
  })
}

const kindOf = (channel: Channel) => KIND_LABELS[channel.kind as ChannelKindName] ?? channel.kind

/** The issue paths the picker answers next to itself: the list and each of its ids (`channels.3`). */
export function pickerFields(field: string): string[] {
  return [field, ...Array.from({ length: MAX_PICKS }, (_, index) => `${field}.${index}`)]
}

/** The picked channels by name (the id when the list is not readable); "none" for none. */
export function ChannelNames({ ids }: { ids: readonly string[] }) {
  const channels = useChannels()
  if (ids.length === 0) return <>none</>
  const byId = new Map((channels.data ?? []).map((channel) => [channel.id, channel]))
  return (
    <>
      {ids
        .map((id) => {
          const channel = byId.get(id)
          return channel ? `${channel.name} (${kindOf(channel)})` : id
        })
        .join(', ')}
    </>
  )
}

/**
 * Checkboxes naming every notification channel (name and kind), writing the picked ids. Without the right to
 * list channels it says so and leaves the picks as they are, so the rest of the form still saves.
 */
export function ChannelPicker({
  picked,
  onChange,
  error,
  field,
}: {
  picked: readonly string[]
  onChange: (ids: string[]) => void
  error: unknown
  /** The field the panel names in its answer: `notifyConfig.channels`, `channels`. */
  field: string
}) {
  const channels = useChannels()
  const { can } = useSession()
  const hintId = `${field.replaceAll('.', '-')}-hint`
  const issues = (problemOf(error)?.issues ?? []).filter((issue) => pickerFields(field).includes(issue.path))
  const toggle = (id: string, on: boolean) =>
    onChange(on ? [...picked, id] : picked.filter((other) => other !== id))
  const forbidden = !can('probes:view') || problemOf(channels.error)?.code === 'forbidden'
  const listed = new Set((channels.data ?? []).map((channel) => channel.id))
  // A pick the list does not hold (removed meanwhile) is still shown, so it can be unticked.
  const unlisted = channels.data ? picked.filter((id) => !listed.has(id)) : []
  const full = picked.length >= MAX_PICKS
  return (
    <fieldset className="channel-picker" aria-describedby={hintId} aria-busy={channels.isLoading}>
      <legend>Channels</legend>
      <span className="hint" id={hintId}>
        {forbidden
          ? `Your role cannot list the notification channels, so they stay as they are (${picked.length} picked); the rest of the form saves as usual.`
          : `Each channel picked is told too, in its service's own format; up to ${MAX_PICKS}.`}
      </span>
      {!forbidden && channels.isError && (
        <p role="alert" className="problem">
          Could not load the channels: {errorText(channels.error)}. The picks stay as they are.
        </p>
      )}
      {channels.data?.length === 0 && (
        <p>
          No channels yet: create one under <Link href="/monitoring/channels">Monitoring → Channels</Link>.
        </p>
      )}
      {(channels.data?.length ?? 0) + unlisted.length > 0 && (
        <div className="choices">
          {(channels.data ?? []).map((channel) => {
            const on = picked.includes(channel.id)
            return (
              <label key={channel.id} className="check">
                <input
                  type="checkbox"
                  checked={on}
                  disabled={!on && full}
                  onChange={(event) => toggle(channel.id, event.target.checked)}
                />
                <span>
                  {channel.name} <span className="hint">({kindOf(channel)})</span>
                </span>
              </label>
            )
          })}
          {unlisted.map((id) => (
            <label key={id} className="check">
              <input type="checkbox" checked onChange={() => toggle(id, false)} />
              <span>
                <code>{id}</code> <span className="hint">(no longer listed)</span>
              </span>
            </label>
          ))}
        </div>
      )}
      {issues.map((issue) => (
        <span key={issue.path} className="field-error" role="alert">
          {issue.message}
        </span>
      ))}
    </fieldset>
  )
}

/**
 * The panel's one way to show a moment: `2027-02-24 07:42 UTC`, the same for every reader whatever their locale or
 * time zone, so two screens (or a screen and a log line) compare at a glance. The full ISO 8601 value stays in the
 * element's `dateTime` and `title`.
 */
export function formatTime(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/** A moment from the API (ISO 8601) in the panel's format, machine-readable in `dateTime`; a dash for none. */
export function TimeStamp({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>
  return (
    <time dateTime={iso} title={iso}>
      {formatTime(iso)}
    </time>
  )
}

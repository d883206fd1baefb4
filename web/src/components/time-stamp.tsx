/** A moment from the API (ISO 8601) in the reader's locale, machine-readable in `dateTime`; a dash for none. */
export function TimeStamp({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>
  return <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>
}

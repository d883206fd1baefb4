/** A timestamp from the panel in the reader's locale, or a dash when there is none. */
export function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : '—'
}

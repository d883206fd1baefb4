import { useEffect, useId, useRef, useState } from 'react'

// The list is asked again once typing pauses this long, not at every key.
const SETTLE_MS = 300

/** A search field that hands its trimmed text to `onSearch` when typing pauses (empty: no search). */
export function SearchBox({
  label,
  value,
  onSearch,
  placeholder,
}: {
  label: string
  value: string
  onSearch: (text: string) => void
  /** What the text is matched against, shown while the field is empty. */
  placeholder?: string
}) {
  const id = useId()
  const [text, setText] = useState(value)
  // The latest callback, so a page re-rendering meanwhile (a live stream) does not restart the wait.
  const handler = useRef(onSearch)
  handler.current = onSearch
  useEffect(() => {
    const trimmed = text.trim()
    if (trimmed === value) return
    const timer = setTimeout(() => handler.current(trimmed), SETTLE_MS)
    return () => clearTimeout(timer)
  }, [text, value])
  return (
    <search className="search-box">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="search"
        value={text}
        maxLength={200}
        placeholder={placeholder}
        onChange={(event) => setText(event.target.value)}
      />
    </search>
  )
}

import { useState } from 'react'

/**
 * Copies `text` to the clipboard and says so in a live region. `label` names what is copied ("token" → "Copy
 * token"), or is the whole button text when it already starts with "Copy".
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const caption = /^copy\b/i.test(label) ? label : `Copy ${label}`
  const [status, setStatus] = useState('')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setStatus('Copied')
    } catch {
      setStatus('Copy failed: select the text and copy it by hand')
    }
  }
  return (
    <span className="copy">
      <button type="button" className="secondary" onClick={() => void copy()}>
        {caption}
      </button>
      <span aria-live="polite" className="note">
        {status}
      </span>
    </span>
  )
}

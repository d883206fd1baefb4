import { useState } from 'react'

/**
 * A destructive action in two clicks: the first asks, the second (labelled with what it does) acts. In a table row,
 * `text` and `confirmText` are the short words shown ("Remove", "Yes, remove") while `label` and `confirmLabel`,
 * which name the object, stay the buttons' accessible names.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  text,
  confirmText,
  onConfirm,
  pending = false,
}: {
  label: string
  confirmLabel: string
  text?: string
  confirmText?: string
  onConfirm: () => void
  pending?: boolean
}) {
  const [asking, setAsking] = useState(false)
  if (!asking)
    return (
      <button
        type="button"
        className="secondary"
        onClick={() => setAsking(true)}
        disabled={pending}
        aria-label={text ? label : undefined}
      >
        {text ?? label}
      </button>
    )
  return (
    <span className="confirm">
      <button
        type="button"
        className="danger"
        disabled={pending}
        aria-label={confirmText ? confirmLabel : undefined}
        onClick={() => {
          setAsking(false)
          onConfirm()
        }}
      >
        {confirmText ?? confirmLabel}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  )
}

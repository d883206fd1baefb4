import { useState } from 'react'

/** A destructive action in two clicks: the first asks, the second (labelled with what it does) acts. */
export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  pending = false,
}: {
  label: string
  confirmLabel: string
  onConfirm: () => void
  pending?: boolean
}) {
  const [asking, setAsking] = useState(false)
  if (!asking)
    return (
      <button type="button" className="secondary" onClick={() => setAsking(true)} disabled={pending}>
        {label}
      </button>
    )
  return (
    <span className="confirm">
      <button
        type="button"
        className="danger"
        disabled={pending}
        onClick={() => {
          setAsking(false)
          onConfirm()
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  )
}

/** A check's own timer: `expired` resolves once `ms` have passed; cancel it when the check ends. */
export interface Deadline {
  ms: number
  expired: Promise<typeof EXPIRED>
  cancel(): void
}

export const EXPIRED = Symbol('expired')

/** Starts a deadline of `ms` milliseconds. */
export function startDeadline(ms: number): Deadline {
  let cancel = () => {}
  const expired = new Promise<typeof EXPIRED>((resolve) => {
    const timer = setTimeout(() => resolve(EXPIRED), ms)
    cancel = () => clearTimeout(timer)
  })
  return { ms, expired, cancel: () => cancel() }
}

/** `work`'s value, or EXPIRED when the deadline comes first (a late rejection of `work` is swallowed). */
export function beforeDeadline<T>(work: Promise<T>, deadline: Deadline): Promise<T | typeof EXPIRED> {
  work.catch(() => {})
  return Promise.race([work, deadline.expired])
}

/**
 * The nonces of signed requests the agent accepted, each kept until its timestamp leaves the 5-minute window
 * (after that the timestamp alone refuses a replay). In memory only: a restarted agent has forgotten the nonces
 * of the requests it accepted in the 5 minutes before the restart.
 */
export class SeenNonces {
  readonly #until = new Map<string, number>()

  /** Records the nonce and answers true, or answers false when it was already seen within the window. */
  claim(nonce: string, rememberUntil: number, now = Date.now()): boolean {
    for (const [seen, until] of this.#until) if (until < now) this.#until.delete(seen)
    if (this.#until.has(nonce)) return false
    this.#until.set(nonce, rememberUntil)
    return true
  }
}

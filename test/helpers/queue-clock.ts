import type { SentJob } from '../dns-servers/run-job'
import { runJobs } from './changelog'

interface Due {
  id: string
  body: SentJob['body']
  dueAt: number
  attempts: number
}

/**
 * The Queue on a simulated clock: runs the captured jobs in the order they fall due (a message sent with a delay,
 * a retry after the delay its job asked for, with the delivery count the Queue would give it), so a test can
 * tell how long a chain of jobs takes in the Queue's time without waiting for it. Each message keeps one id
 * across its retries, as on the Queue, so the jobs list keys each run apart.
 */
export class QueueClock {
  /** Seconds since the clock started. */
  now = 0
  private readonly due: Due[] = []

  /** `onTime` runs as the clock moves (e.g. to move `Date` with it, for code that reads the time itself). */
  constructor(
    private readonly sent: SentJob[],
    private readonly onTime?: (seconds: number) => void,
  ) {}

  /** Runs due jobs until `until()` holds (answering the clock then) or none is left (null). */
  async runUntil(until: () => Promise<boolean>, limit = 200): Promise<number | null> {
    for (let i = 0; i < limit; i++) {
      this.take()
      if (await until()) return this.now
      const next = this.due.sort((a, b) => a.dueAt - b.dueAt).shift()
      if (!next) return null
      this.now = Math.max(this.now, next.dueAt)
      this.onTime?.(this.now)
      const result = await runJobs([{ id: next.id, body: next.body, attempts: next.attempts }])
      if (result.retryMessages.length > 0) {
        const delay = result.retryDelays[next.id] ?? 0
        this.due.push({ ...next, dueAt: this.now + delay, attempts: next.attempts + 1 })
      }
    }
    throw new Error(`still running after ${limit} jobs`)
  }

  // What the jobs (and the test) sent since the last look.
  private take(): void {
    for (const job of this.sent.splice(0)) {
      const id = `msg-${crypto.randomUUID()}`
      this.due.push({ id, body: job.body, dueAt: this.now + job.delaySeconds, attempts: 1 })
    }
  }
}

import { type MockInstance, vi } from 'vitest'
import type { JobMessage } from '../../src/jobs/messages'
import { workerEnv } from '../helpers/changelog'
import { ORIGIN, send } from '../helpers/http'
import { runJob } from '../helpers/jobs'

/** One mail the ALERT_EMAIL binding was asked to send. */
export interface SentMail {
  from: string
  to: string
  subject: string
  text: string
  headers: Record<string, string>
}

/** Mocks the ALERT_EMAIL binding: answers the mails sent through it. */
export function mailbox(): { mails: SentMail[]; send: MockInstance } {
  const mails: SentMail[] = []
  const spy = vi.spyOn(workerEnv.ALERT_EMAIL, 'send').mockImplementation(async (mail) => {
    mails.push(mail as unknown as SentMail)
    return { messageId: `<m${mails.length}@panel.test>` }
  })
  return { mails, send: spy }
}

/** POSTs a subscribe request (JSON), from `client` when given (the TRUSTED_CLIENT_IP_HEADER the test set). */
export const subscribe = (slug: string, body: unknown, headers: Record<string, string> = {}) =>
  send(`/api/v1/status/${slug}/subscribe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

/** Runs, once each, the captured jobs of `type`, and removes them from `sent`. */
export async function runQueued(sent: JobMessage[], type: JobMessage['type']) {
  const due = sent.filter((job) => job.type === type)
  sent.splice(0, sent.length, ...sent.filter((job) => !due.includes(job)))
  const results = []
  for (const job of due) results.push(await runJob(job))
  return results
}

/** The link in a mail's text that starts with `prefix` (a path under the origin). */
export function linkIn(mail: SentMail | undefined, prefix: string): string {
  const found = mail?.text.match(new RegExp(`${ORIGIN}${prefix}\\S*`))?.[0]
  if (!found) throw new Error(`no ${prefix} link in ${mail?.text}`)
  return found.slice(ORIGIN.length)
}

/** Subscribes `email` and follows its confirmation link's button: a confirmed address. */
export async function confirmedAddress(slug: string, email: string, sent: JobMessage[], mails: SentMail[]) {
  const seen = mails.length
  await subscribe(slug, { email })
  await runQueued(sent, 'status-page.subscription-mail')
  const confirm = linkIn(mails[seen], `/status/${slug}/confirm`)
  const answer = await send(confirm, { method: 'POST' })
  if (answer.status !== 200) throw new Error(`confirming answered ${answer.status}`)
  return { confirm, unsubscribe: linkIn(mails[seen], `/status/${slug}/unsubscribe`) }
}

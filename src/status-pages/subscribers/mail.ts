import type { Incident, IncidentUpdate } from '../incidents/schema'

/** What every mail of a page needs: where its links point and how it is named. */
export interface MailContext {
  origin: string
  slug: string
  pageTitle: string
  unsubscribeToken: string
}

export interface SubscriberMail {
  subject: string
  text: string
  headers: Record<string, string>
}

const STATE_WORDS = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
} as const

const pageUrl = (mail: MailContext) => `${mail.origin}/status/${mail.slug}`

export const unsubscribeUrl = (mail: MailContext) =>
  `${pageUrl(mail)}/unsubscribe?token=${encodeURIComponent(mail.unsubscribeToken)}`

/**
 * Closes every mail: why it came and the unsubscribe link, which RFC 8058's headers repeat so that mail
 * programs offer one-click unsubscribing (a POST to that URL, which unsubscribe-routes.ts answers).
 */
function finish(mail: MailContext, subject: string, lines: string[]): SubscriberMail {
  const unsubscribe = unsubscribeUrl(mail)
  return {
    subject,
    text: [
      ...lines,
      '',
      '--',
      `You get this mail because this address was subscribed to ${mail.pageTitle} (${pageUrl(mail)}).`,
      `Unsubscribe: ${unsubscribe}`,
    ].join('\n'),
    headers: {
      'List-Unsubscribe': `<${unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  }
}

/** The confirmation a subscribe request sends: nothing else is mailed until its link is followed. */
export function confirmationMail(mail: MailContext, confirmToken: string, hours: number): SubscriberMail {
  const confirm = `${pageUrl(mail)}/confirm?token=${encodeURIComponent(confirmToken)}`
  return finish(mail, `Confirm your subscription to ${mail.pageTitle}`, [
    `Someone, hopefully you, asked for mail about incidents on ${mail.pageTitle}.`,
    '',
    `To confirm, open this link and press Confirm (within ${hours} hours):`,
    confirm,
    '',
    'If you did not ask, ignore this mail: nothing more will be sent.',
  ])
}

/** What a subscribe request for an address already confirmed sends instead: the same effort, no new state. */
export function alreadySubscribedMail(mail: MailContext): SubscriberMail {
  return finish(mail, `You are subscribed to ${mail.pageTitle}`, [
    `Someone asked for mail about incidents on ${mail.pageTitle} for this address, which already gets it.`,
    'Nothing has changed. To stop it, use the link below.',
  ])
}

/** One incident update, as a confirmed subscriber receives it. */
export function incidentMail(mail: MailContext, incident: Incident, update: IncidentUpdate): SubscriberMail {
  const state = STATE_WORDS[update.state]
  return finish(mail, `[${mail.pageTitle}] ${incident.title}: ${state}`, [
    `${incident.title}`,
    `${state} at ${update.at.slice(0, 16).replace('T', ' ')} UTC (impact: ${incident.impact})`,
    '',
    update.message,
    '',
    `Follow it at ${pageUrl(mail)}`,
  ])
}

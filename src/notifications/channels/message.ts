/** What every channel kind renders in its service's own format. */
export interface ChannelMessage {
  /** `problem` opens or repeats an alert, `recovery` is its all-clear, `test` is the test button's message. */
  level: 'problem' | 'recovery' | 'test'
  severity: 'critical' | 'warning' | 'info'
  title: string
  text: string
  /** One key per subject (a probe): PagerDuty's dedup key, so a resolve closes what the trigger opened. */
  dedupKey: string
  /** What the message is about (a probe's target): PagerDuty's `source`. */
  source: string
  /** The signed webhook's JSON body. */
  body: string
}

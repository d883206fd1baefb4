import { useMutation } from '@tanstack/react-query'
import { api, errorText } from '../../api'
import { useChannels } from '../../components/channel-picker'
import type { Probe } from './probe-types'
import { testAnswerText } from './test-answer'

/**
 * "Send a test" for a probe: the panel has no probe-level test, so each notification channel the probe names gets
 * `notifications.channels.test`, one after another, and each answer is listed under the channel's name. Emails and
 * the webhook are not sent a test.
 */
export function ProbeTest({ probe }: { probe: Probe }) {
  const ids = probe.notifyConfig.channels
  const channels = useChannels()
  const names = new Map((channels.data ?? []).map((channel) => [channel.id, channel.name]))
  const test = useMutation({
    mutationFn: async () => {
      const answers: { id: string; text: string; delivered: boolean }[] = []
      for (const id of ids) {
        try {
          const result = await api.notifications.channels.test({ id })
          answers.push({ id, text: testAnswerText(result), delivered: result.delivered })
        } catch (error) {
          answers.push({ id, text: errorText(error), delivered: false })
        }
      }
      return answers
    },
  })
  return (
    <section aria-labelledby="probe-test-heading">
      <h2 id="probe-test-heading">Test the notifications</h2>
      {ids.length === 0 ? (
        <p className="note">
          This probe names no notification channel, so there is nothing to send a test to (emails and the
          webhook are not tested from here).
        </p>
      ) : (
        <>
          <p className="note">
            Sends a test message to each of the probe's{' '}
            {ids.length === 1 ? 'channel' : `${ids.length} channels`} and shows each answer. Emails and the
            webhook are not sent a test.
          </p>
          <div className="actions">
            <button
              type="button"
              className="secondary"
              disabled={test.isPending}
              onClick={() => test.mutate()}
            >
              Send a test
            </button>
          </div>
          <div role="status">
            {test.data && (
              <ul data-testid="probe-test-answers">
                {test.data.map((answer) => (
                  <li key={answer.id}>
                    <strong>{names.get(answer.id) ?? answer.id}</strong>:{' '}
                    <span className={answer.delivered ? 'state state-up' : 'state state-down'}>
                      {answer.text}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </>
      )}
    </section>
  )
}

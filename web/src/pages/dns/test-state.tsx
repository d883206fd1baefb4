import { when } from './format'
import type { AccountRow } from './providers'

/** An account's last test outcome, failures included, in the provider's words as the panel recorded them. */
export function TestState({ state }: { state: AccountRow['lastTestState'] }) {
  return (
    <span className="test-state">
      <span className={`state ${state.ok ? 'state-up' : 'state-down'}`}>
        {state.ok ? 'passed' : 'failed'}
      </span>{' '}
      {state.detail} <span className="note">({when(state.testedAt)})</span>
      {state.retryAfterSeconds !== null && (
        <span className="note">
          {' '}
          The provider asked to wait {state.retryAfterSeconds} s before the next test.
        </span>
      )}
    </span>
  )
}

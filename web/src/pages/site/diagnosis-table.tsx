import { CopyButton } from '../../components/copy-button'
import { when } from './format'
import type { Diagnosis } from './types'

/** Each verdict kind in a few words a customer understands. */
const VERDICT_WORDS: Record<Diagnosis['verdicts'][number]['kind'], string> = {
  ok: 'ok',
  missing: 'missing',
  wrong: 'wrong value',
  'in-the-way': 'in the way',
  'cname-beside-others': 'CNAME beside other records',
  'stale-acme-challenge': 'stale _acme-challenge',
  'caa-forbids': 'CAA forbids the CA',
  'dnssec-invalid': 'DNSSEC does not validate',
  'resolver-failed': 'no answer',
}

/**
 * Why a hostname is not green yet: one row per verdict with what the panel expects, what DNS holds and what to
 * do, then where the answers came from and when they can change.
 */
export function DiagnosisTable({ diagnosis, hostname }: { diagnosis: Diagnosis; hostname: string }) {
  return (
    <div>
      <table className="records">
        <caption>DNS diagnosis of {hostname}</caption>
        <thead>
          <tr>
            <th scope="col">Record</th>
            <th scope="col">Expected</th>
            <th scope="col">Observed</th>
            <th scope="col">Verdict</th>
            <th scope="col">What to do</th>
          </tr>
        </thead>
        <tbody>
          {diagnosis.verdicts.map((verdict) => (
            <tr
              key={`${verdict.kind} ${verdict.type} ${verdict.name} ${verdict.expected} ${verdict.observed.join(' ')}`}
            >
              <td>
                {verdict.type ?? ''} <code>{verdict.name}</code>
              </td>
              <td>{verdict.expected ? <code>{verdict.expected}</code> : '—'}</td>
              <td>
                {verdict.observed.length > 0
                  ? verdict.observed.map((value) => <code key={value}>{value} </code>)
                  : 'nothing'}
              </td>
              <td>
                <span className={`verdict verdict-${verdict.kind === 'ok' ? 'ok' : 'bad'}`}>
                  {VERDICT_WORDS[verdict.kind]}
                </span>
              </td>
              <td>
                {verdict.kind === 'ok' ? '' : verdict.detail}
                {verdict.fixable && verdict.kind !== 'ok' && (
                  <span className="note"> The panel fixes this with its next write.</span>
                )}
                {verdict.add && (
                  <CopyButton
                    text={`${verdict.add.name}. IN ${verdict.add.type} ${verdict.add.value}`}
                    label={`Copy the ${verdict.add.type} record to add`}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="note">
        {diagnosis.observed
          .map((set) =>
            set.error
              ? `${set.source === 'zone' ? 'The zone' : 'The resolver'} gave no answer (${set.error})`
              : `${set.source === 'zone' ? 'The zone' : 'The resolver'} read ${when(set.readAt)}${set.rcode && set.rcode !== 'NOERROR' ? ` (${set.rcode})` : ''}`,
          )
          .join('; ')}
        . DNS can change after {when(diagnosis.nextCheckAfter)}.
      </p>
    </div>
  )
}

/** Reads the hostname's DNS again at once (customHostnames.check, domains.check); disabled while it runs. */
export function CheckNowButton({
  hostname,
  check,
}: {
  hostname: string
  check: { mutate: () => void; isPending: boolean }
}) {
  return (
    <button
      type="button"
      className="secondary"
      onClick={() => check.mutate()}
      disabled={check.isPending}
      aria-label={`Check now: DNS of ${hostname}`}
    >
      Check now
    </button>
  )
}

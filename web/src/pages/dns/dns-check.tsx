interface DnsCheck {
  ok: boolean
  expected: string[]
  found: string[]
  detail: string
}

/** What DNS publishes against what the panel expects, as a verify procedure answered it. */
export function DnsCheckResult({ check }: { check: DnsCheck }) {
  return (
    <div className="dns-check">
      <p>
        <span className={`state ${check.ok ? 'state-up' : 'state-down'}`}>
          {check.ok ? 'Matches' : 'Differs'}
        </span>{' '}
        {check.detail}
      </p>
      <dl>
        <dt>Expected</dt>
        <dd>{check.expected.length ? check.expected.join(', ') : 'nothing'}</dd>
        <dt>Found</dt>
        <dd>{check.found.length ? check.found.join(', ') : 'nothing'}</dd>
      </dl>
    </div>
  )
}

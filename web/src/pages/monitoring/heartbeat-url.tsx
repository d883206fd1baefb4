import { CopyButton } from '../../components/copy-button'

function examples(url: string): { label: string; command: string }[] {
  return [
    { label: 'Ping when the job succeeded', command: `curl -fsS -m 10 --retry 5 ${url}` },
    {
      label: 'Say a run began (the next ping carries its duration)',
      command: `curl -fsS -m 10 --retry 5 ${url}/start`,
    },
    { label: 'Report a failed run', command: `curl -fsS -m 10 --retry 5 ${url}/fail` },
    {
      label: 'Report the exit status of the command before it (0 is success)',
      command: `backup.sh; curl -fsS -m 10 --retry 5 ${url}/$?`,
    },
    {
      label: 'POST with a body (its first 10,000 bytes are kept as the last ping)',
      command: `backup.sh 2>&1 | tail -n 50 | curl -fsS -m 10 --retry 5 --data-binary @- ${url}`,
    },
  ]
}

/** A heartbeat URL just minted: shown once, with copyable curl examples. */
export function HeartbeatUrl({ url }: { url: string }) {
  return (
    <section className="heartbeat" aria-labelledby="heartbeat-heading">
      <h2 id="heartbeat-heading">Heartbeat URL</h2>
      <p role="status">
        <strong>Copy it now: it is shown only this once.</strong> The panel keeps only a hash of its secret,
        so it cannot show it again. If it is lost, rotate the token for a new URL (the old one stops working
        at once).
      </p>
      <p className="secret" data-testid="heartbeat-url">
        {url}
      </p>
      <CopyButton text={url} label="heartbeat URL" />
      <h3>Ping it from your job</h3>
      <ul className="examples">
        {examples(url).map((example) => (
          <li key={example.label}>
            <span>{example.label}</span>
            <pre>
              <code>{example.command}</code>
            </pre>
            <CopyButton text={example.command} label="command" />
          </li>
        ))}
      </ul>
    </section>
  )
}

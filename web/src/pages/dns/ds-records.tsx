import { useQuery } from '@tanstack/react-query'
import { api } from '../../api'
import { CopyButton } from '../../components/copy-button'
import { QueryProblem } from '../../components/query-problem'

const DIGESTS: Record<number, string> = { 2: 'SHA-256', 4: 'SHA-384' }

/** The DS records to enter at the registrar for a signed zone, each with a copy button. */
export function DsRecords({ zoneId }: { zoneId: string }) {
  const ds = useQuery({
    queryKey: ['dnsServers', 'ds', zoneId],
    queryFn: () => api.dnsServers.zones.getDsRecord({ id: zoneId }),
  })
  if (ds.isPending) return <p className="loading">Reading the signing keys…</p>
  if (ds.isError) return <QueryProblem error={ds.error} what="the DS records" />
  return (
    <div>
      <p>Give one of these to the registrar of {ds.data.name} (most take SHA-256):</p>
      <ul className="plain">
        {ds.data.ds.map((entry) => {
          const digest = DIGESTS[entry.digestType] ?? `digest type ${entry.digestType}`
          return (
            <li key={entry.record}>
              <p>
                {digest}, key tag {entry.keyTag}, algorithm {entry.algorithm}
              </p>
              <pre className="secret">{entry.record}</pre>
              <CopyButton text={entry.record} label={`${digest} DS record`} />
            </li>
          )
        })}
      </ul>
      <details>
        <summary>DNSKEY records</summary>
        <ul className="plain">
          {ds.data.dnskeys.map((key) => (
            <li key={key}>
              <code className="secret">{key}</code>
            </li>
          ))}
        </ul>
      </details>
    </div>
  )
}

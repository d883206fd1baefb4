import { CopyButton } from '../../components/copy-button'
import type { DnsRecord } from './types'

// Zone-file lines: what a customer pastes into most DNS consoles' bulk import, or reads record by record.
function zoneLines(records: readonly DnsRecord[]): string {
  return records
    .map((r) => `${r.name}. ${r.ttl} IN ${r.type} ${r.value}${r.type === 'CNAME' ? '.' : ''}`)
    .join('\n')
}

/** The DNS records to hand to a customer, each value copyable, and all of them as zone-file lines. */
export function RecordsTable({ records, caption }: { records: readonly DnsRecord[]; caption: string }) {
  if (records.length === 0) return null
  return (
    <div>
      <table className="records">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            <th scope="col">TTL</th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr key={`${record.type} ${record.name} ${record.value}`}>
              <td>{record.type}</td>
              <td>
                <code>{record.name}</code>
              </td>
              <td>
                <code>{record.value}</code>{' '}
                <CopyButton text={record.value} label={`Copy ${record.type} value`} />
              </td>
              <td>{record.ttl}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <CopyButton text={zoneLines(records)} label="Copy all as zone-file lines" />
    </div>
  )
}

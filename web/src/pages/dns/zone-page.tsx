import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useParams } from 'wouter'
import { api } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { BoxResults } from './box-results'
import { DnsTabs } from './dns-tabs'
import { DnssecPanel } from './dnssec-panel'
import { type RecordDraft, RecordEditor, type RecordWrite } from './record-editor'
import { RecordRow } from './record-row'
import { ZoneBoxes } from './zone-boxes'
import { ZoneChecks } from './zone-checks'

/** One zone: its boxes, its records read live from a synced box with the record editor, DNSSEC and delegation. */
export function ZonePage() {
  const { id = '' } = useParams<{ id: string }>()
  const { can } = useSession()
  const queryClient = useQueryClient()
  const zone = useQuery({
    queryKey: ['dnsServers', 'zone', id],
    queryFn: () => api.dnsServers.zones.get({ id }),
  })
  // The editor is remounted (by key) whenever another set is loaded into it.
  const [draft, setDraft] = useState<{ key: number; value: RecordDraft } | null>(null)
  const [lastWrite, setLastWrite] = useState<RecordWrite | null>(null)
  if (zone.isPending) return <p className="loading">Loading the zone…</p>
  if (zone.isError) return <QueryProblem error={zone.error} what="zone" />
  const z = zone.data
  const written = (result: RecordWrite) => {
    setLastWrite(result)
    setDraft(null)
    return queryClient.invalidateQueries({ queryKey: ['dnsServers'] })
  }
  const edit = (value: RecordDraft) => setDraft({ key: (draft?.key ?? 0) + 1, value })
  return (
    <section>
      <h1>Zone {z.name}</h1>
      <DnsTabs />
      <p>
        <Link href="/dns/zones">All zones</Link>
      </p>
      <h2>Boxes</h2>
      <ZoneBoxes boxes={z.boxes} />
      <h2>Records</h2>
      {z.records === null ? (
        <p role="alert" className="problem">
          No synced box answered, so the records cannot be shown: {z.recordsError}
        </p>
      ) : (
        <table>
          <caption className="note">
            Read live from {z.boxes.find((b) => b.nodeId === z.recordsFrom)?.name ?? 'a synced box'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">TTL</th>
              <th scope="col">Values</th>
              {can('settings:edit') && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {z.records.map((record) => (
              <RecordRow
                key={`${record.name} ${record.type}`}
                zoneId={z.id}
                record={record}
                onEdit={edit}
                onWritten={written}
              />
            ))}
          </tbody>
        </table>
      )}
      <div aria-live="polite">
        {lastWrite && (
          <BoxResults
            boxes={lastWrite.boxes}
            caption={`${lastWrite.record ? 'Wrote' : 'Deleted'} ${lastWrite.name} ${lastWrite.type}: each box`}
          />
        )}
      </div>
      {can('settings:edit') &&
        (draft ? (
          <RecordEditor
            key={draft.key}
            zone={z}
            initial={draft.value}
            onWritten={written}
            onCancel={() => setDraft(null)}
          />
        ) : (
          <button type="button" onClick={() => edit({ name: z.name, type: 'A', ttl: 3600, values: [] })}>
            Add a record set
          </button>
        ))}
      <DnssecPanel zone={z} />
      <ZoneChecks zoneId={z.id} />
    </section>
  )
}

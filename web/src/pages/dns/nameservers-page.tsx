import { useQuery } from '@tanstack/react-query'
import { api } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { DnsTabs } from './dns-tabs'
import { EnrollForm } from './enroll-form'
import { NameserverRow } from './nameserver-row'

/** Self-hosted nameserver boxes: PowerDNS, NS health (glue), enroll, install and remove. */
export function NameserversPage() {
  const { can } = useSession()
  const boxes = useQuery({
    queryKey: ['dnsServers', 'nameservers'],
    queryFn: () => api.dnsServers.nameservers.list({ limit: 500 }),
  })
  return (
    <section>
      <h1>Nameservers</h1>
      <DnsTabs />
      <p className="note">
        Every zone is served by every box with PowerDNS; a zone's NS set is their host names. NS health is the
        last glue check: whether the host name resolves to the box's addresses.
      </p>
      <h2>Boxes</h2>
      {boxes.isPending && <p className="loading">Loading nameservers…</p>}
      <QueryProblem error={boxes.error} what="nameservers" />
      {boxes.isSuccess && boxes.data.length === 0 && <p>No nameserver enrolled yet.</p>}
      {boxes.data && boxes.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Host name</th>
              <th scope="col">PowerDNS</th>
              <th scope="col">NS health</th>
              {can('settings:edit') && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {boxes.data.map((box) => (
              <NameserverRow key={box.id} box={box} />
            ))}
          </tbody>
        </table>
      )}
      {can('settings:edit') && <EnrollForm />}
    </section>
  )
}

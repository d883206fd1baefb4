import { Link } from 'wouter'
import { api } from '../../api'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { useArrayPages } from '../../paged-list'
import { useSession } from '../../session'
import { DnsTabs } from './dns-tabs'
import { ZoneBoxes } from './zone-boxes'
import { ZoneCreateForm } from './zone-create-form'

/** The zones the self-hosted nameservers serve, with each box's sync state. */
export function ZonesPage() {
  const { can } = useSession()
  const zones = useArrayPages(['dnsServers', 'zones'], (page) => api.dnsServers.zones.list(page))
  return (
    <section>
      <h1>DNS zones</h1>
      <DnsTabs />
      <h2>Zones</h2>
      {zones.isPending && <p className="loading">Loading zones…</p>}
      <QueryProblem error={zones.error} what="zones" />
      {zones.rows?.length === 0 && <p>No zone yet.</p>}
      {zones.rows && zones.rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Zone</th>
              <th scope="col">DNSSEC</th>
              <th scope="col">Boxes</th>
            </tr>
          </thead>
          <tbody>
            {zones.rows.map((zone) => (
              <tr key={zone.id}>
                <th scope="row">
                  <Link href={`/dns/zones/${zone.id}`}>{zone.name}</Link>
                </th>
                <td>{zone.dnssec ? 'signed' : 'off'}</td>
                <td>
                  <ZoneBoxes boxes={zone.boxes} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={zones} what="zones" />
      {can('settings:edit') && <ZoneCreateForm />}
    </section>
  )
}

import { InstancesSection } from './instances-section'
import { NodesSection } from './nodes-section'
import { SitesSection } from './sites-section'

/** Nodes, the instances on them and the sites on those, bottom-up removal guarded by the panel. */
export function FleetPage() {
  return (
    <section>
      <h1>Fleet</h1>
      <NodesSection />
      <InstancesSection />
      <SitesSection />
    </section>
  )
}

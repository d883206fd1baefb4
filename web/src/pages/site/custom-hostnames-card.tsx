import { AllowList } from './allow-list'
import { HostnamesList } from './hostnames-list'
import { SiteTokens } from './site-tokens'

/** The SaaS seam of one site: its tokens, the zones the panel may write into, and its customers' hostnames. */
export function CustomHostnamesCard({ siteId }: { siteId: string }) {
  return (
    <section aria-labelledby="custom-hostnames-heading" className="card-section">
      <h3 id="custom-hostnames-heading">Custom hostnames</h3>
      <SiteTokens siteId={siteId} />
      <AllowList siteId={siteId} />
      <HostnamesList siteId={siteId} />
    </section>
  )
}

import { mirrorProcedures } from './mirror-procedures'
import { releaseProcedures } from './release-procedures'
import { webhookProcedures } from './webhook-procedures'

/** `changelog.releases.*`, `changelog.webhooks.*` and `changelog.mirror.*`; the public feed is `meta.*`. */
export const changelogProcedures = {
  releases: releaseProcedures,
  webhooks: webhookProcedures,
  mirror: mirrorProcedures,
}

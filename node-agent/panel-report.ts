import type { CertificateObservation } from '../src/agent-contract/v1.ts'
import { signatureHeaders } from '../src/lib/service-signature.ts'

/** Where and as whom the agent reports to the panel. */
export interface PanelTarget {
  panelUrl: string
  nodeId: string
  secret: string
}

/** `POST <panel>/api/agent/v1/certificates`, signed with the agent secret plus `x-node-id`; throws unless 2xx. */
export async function reportCertificates(
  target: PanelTarget,
  observations: readonly CertificateObservation[],
): Promise<void> {
  const body = JSON.stringify({ observations })
  const response = await fetch(`${target.panelUrl.replace(/\/+$/, '')}/api/agent/v1/certificates`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-node-id': target.nodeId,
      ...(await signatureHeaders(target.secret, body)),
    },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
  })
  await response.body?.cancel()
  if (!response.ok) throw new Error(`the panel answered ${response.status}`)
}

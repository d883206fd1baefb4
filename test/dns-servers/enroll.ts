import type { FakePowerDns } from '../fakes/powerdns'
import { type Caller, ok } from '../helpers/http'

/** Enrolls one nameserver per fake box (ns1.<label>-panel.test, ns2…) and returns their node ids in order. */
export async function enrollBoxes(
  admin: Caller,
  label: string,
  boxes: readonly FakePowerDns[],
): Promise<string[]> {
  const ids: string[] = []
  for (const [i, box] of boxes.entries()) {
    const row = await ok<{ id: string }>(
      'dnsServers.nameservers.enroll',
      {
        name: `${label}-ns${i + 1}`,
        hostname: `ns${i + 1}.${label}-panel.test`,
        publicIpv4: `192.0.2.${i + 1}`,
        agentUrl: `https://agent${i + 1}.${label}.test`,
        agentSecret: 'agent-secret-0123456789',
        powerDns: { apiUrl: box.apiUrl, apiKey: box.apiKey },
      },
      admin,
    )
    ids.push(row.id)
  }
  return ids
}

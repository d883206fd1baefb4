import { dnssecProcedures } from './dnssec/procedures'
import { nameserverProcedures } from './nameservers/procedures'
import { recordProcedures } from './records/procedures'
import { zoneProcedures } from './zones/procedures'

/** `dnsServers.nameservers.*` and `dnsServers.zones.*`: self-hosted PowerDNS boxes and the zones they serve. */
export const dnsServersProcedures = {
  nameservers: nameserverProcedures,
  zones: { ...zoneProcedures, ...recordProcedures, ...dnssecProcedures },
}

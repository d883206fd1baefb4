import { dnssecProcedures } from './dnssec-procedures'
import { nameserverProcedures } from './nameserver-procedures'
import { recordProcedures } from './record-procedures'
import { zoneProcedures } from './zone-procedures'

/** `dnsServers.nameservers.*` and `dnsServers.zones.*`: self-hosted PowerDNS boxes and the zones they serve. */
export const dnsServersProcedures = {
  nameservers: nameserverProcedures,
  zones: { ...zoneProcedures, ...recordProcedures, ...dnssecProcedures },
}

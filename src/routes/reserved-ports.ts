/** Ports every node needs for itself, whatever its agent's address, and what each one is. */
const NODE_PORTS: Record<number, string> = {
  22: 'SSH on the node',
  80: "Caddy's HTTP (ACME HTTP-01 and the redirect to HTTPS) on the node",
  443: "Caddy's HTTPS on the node",
  2019: "Caddy's admin API on the node",
}

/** The port the panel calls the node's agent on: its agentUrl's, or the scheme's default. */
function agentPort(agentUrl: string): number {
  const url = new URL(agentUrl)
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
}

/**
 * Why a raw forward may not listen on `listenPort` of the node, or null when it may. Either proto: the agent's
 * forwarder binds the port on the node's addresses, which would take it from (or be refused by) the node itself.
 */
export function reservedPortProblem(listenPort: number, agentUrl: string): string | null {
  const use =
    NODE_PORTS[listenPort] ??
    (listenPort === agentPort(agentUrl) ? "the node agent's own (its agentUrl)" : null)
  return use ? `port ${listenPort} is ${use}; forward another port` : null
}

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { freePorts } from '../../node-agent/testing/harness'
import { startPebble } from '../../node-agent/testing/pebble'
import { AgentProcess } from './agent-process'
import { CaddyProcess } from './caddy'
import { controlHandler } from './control'
import { startEcho, startSite, startTls13Only } from './local-servers'
import { loopbackName } from './loopback-name'
import { assertToolsInstalled, type PeerBox, PowerDnsProcess } from './powerdns-boxes'
import { PanelRelay } from './relay'
import { ResolverProcess } from './resolver'
import { startValidatingResolver, type ValidatingPeers } from './validating-resolver'

// Runs in Node before the workerd tests: starts the real peers on 127.0.0.1 (two PowerDNS boxes, dnsdist as
// the panel's DoH resolver, Caddy, pebble validating HTTP-01 against box 0, the reference agent's bundle on the
// system Node, a site and an echo service) and a control server through which the tests (inside workerd, which cannot spawn processes)
// drive them. Everything is stopped on teardown, also when a step fails.

/** What the tests see of the peers. */
export interface PeersContext {
  boxes: PeerBox[]
  control: string
  agentUrl: string
  sitePort: number
  echoPort: number
  /** Caddy's TLS port and admin API (the monitoring test reads a certificate off the port without SNI). */
  httpsPort: number
  caddyAdminUrl: string
  /** A TLS 1.3-only server (self-signed, notAfter as ISO), for checks from the node. */
  tls13Only: { port: number; notAfter: string }
  /** This machine's IPv4 address besides loopback, where the node's checks reach the local servers. */
  checkHost: string
  /** A name the resolver answers with a loopback address, other than localhost (loopback-name.ts). */
  loopbackName: string
  /** A validating resolver (pdns_recursor) over signed and CAA fixture zones (validating-resolver.ts). */
  validating: ValidatingPeers
}

function checkHost(): string {
  const entry = Object.values(networkInterfaces())
    .flat()
    .find((candidate) => candidate && !candidate.internal && candidate.family === 'IPv4')
  if (!entry)
    throw new Error('the peers suite needs an IPv4 address besides loopback, for checks from the node')
  return entry.address
}

/** The DoH port, chosen by the config (the panel's bindings are fixed before this setup runs). */
function resolverPort(): number {
  const port = Number(process.env.PEERS_RESOLVER_PORT)
  if (!port)
    throw new Error('PEERS_RESOLVER_PORT is not set: run the peers suite with test/peers/vitest.config.ts')
  return port
}

async function timed<T>(step: string, run: () => Promise<T>): Promise<T> {
  const start = performance.now()
  const result = await run()
  console.log(`peers: ${step} ready in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  return result
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  assertToolsInstalled()
  const root = mkdtempSync(join(tmpdir(), 'panel-peers-'))
  const stops: (() => Promise<void> | void)[] = []
  const teardown = async () => {
    for (const stop of stops.reverse()) await stop()
    rmSync(root, { recursive: true, force: true })
  }
  try {
    const loopback = loopbackName()
    stops.push(loopback.stop)
    const boxes = await timed('PowerDNS boxes', async () => {
      const started: PowerDnsProcess[] = []
      const ports = await freePorts(4, [resolverPort()])
      for (const index of [0, 1]) {
        const [api = 0, dns = 0] = ports.slice(index * 2)
        const box = new PowerDnsProcess(root, index, api, dns)
        stops.push(() => box.stop())
        await box.start()
        started.push(box)
      }
      return started
    })
    await timed('dnsdist (DoH)', async () => {
      const dir = join(root, 'dnsdist')
      mkdirSync(dir)
      const boxPorts = boxes.map((box) => box.dnsPort)
      const [dnsPort = 0] = await freePorts(1, [resolverPort()])
      const resolver = new ResolverProcess(dir, resolverPort(), dnsPort, boxPorts)
      stops.push(() => resolver.stop())
      await resolver.start()
    })
    const validating = await timed('validating resolver (pdns_recursor)', () =>
      startValidatingResolver(root, stops, [resolverPort()]),
    )
    const [site, echo] = await timed('site and echo service', async () => {
      const servers = await Promise.all([startSite(), startEcho()])
      for (const server of servers) stops.push(() => server.close())
      return servers
    })
    const tls13Only = await startTls13Only(join(root, 'tls13-only'))
    stops.push(() => tls13Only.close())
    // freePorts never hands a port out twice in this process (pebble and the control's /free-port draw from it too);
    // the resolver's port, chosen by the config, is left out by name as well.
    const [httpPort = 0, httpsPort = 0, adminPort = 0, controlPort = 0, agentPort = 0, askPort = 0] =
      await freePorts(6, [resolverPort()])
    const caddy = await timed('Caddy', async () => {
      const process = new CaddyProcess(join(root, 'caddy'), adminPort)
      stops.push(() => process.stop())
      await process.start()
      return process
    })
    const box0 = boxes[0]
    if (!box0) throw new Error('no PowerDNS box 0')
    const pebble = await timed('pebble', async () => {
      const started = await startPebble({ dnsServer: `127.0.0.1:${box0.dnsPort}`, httpPort })
      stops.push(() => started.stop())
      return started
    })
    const relay = new PanelRelay()
    stops.push(() => relay.close())
    const agent = new AgentProcess({
      root: join(import.meta.dirname, '../..'),
      port: agentPort,
      askPort,
      panelUrl: `http://127.0.0.1:${controlPort}/panel`,
      caddyAdminUrl: caddy.adminUrl,
      stateDir: join(root, 'agent-state'),
      storageDir: join(root, 'agent-storage'),
      httpsPort,
      httpPort,
      pebbleDirectory: pebble.directoryUrl,
      pebbleTrustBundle: pebble.trustBundle,
    })
    stops.push(() => agent.stop())
    const trustBundle = readFileSync(pebble.trustBundle, 'utf8')
    const server = createServer((req, res) => {
      void controlHandler({ boxes, caddy, agent, relay, httpsPort, trustBundle, validating })(req, res)
    })
    await new Promise<void>((resolve) => server.listen(controlPort, '127.0.0.1', resolve))
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }),
    )
    const context: PeersContext = {
      boxes: boxes.map((box) => box.box),
      control: `http://127.0.0.1:${controlPort}`,
      agentUrl: agent.url,
      sitePort: site.port,
      echoPort: echo.port,
      httpsPort,
      caddyAdminUrl: caddy.adminUrl,
      tls13Only: { port: tls13Only.port, notAfter: tls13Only.notAfter },
      checkHost: checkHost(),
      loopbackName: loopback.name,
      validating: { url: validating.url, box: validating.box },
    }
    project.provide('peers', context)
  } catch (error) {
    await teardown()
    throw error
  }
  return teardown
}

declare module 'vitest' {
  export interface ProvidedContext {
    peers: PeersContext
  }
}

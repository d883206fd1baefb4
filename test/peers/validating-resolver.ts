import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePorts } from '../../node-agent/testing/harness'
import { FIXTURE_ZONES, SIGNED_ZONES } from './dns-fixture-zones'
import { type PeerBox, PowerDnsProcess } from './powerdns-boxes'
import { ResolverProcess } from './resolver'
import { stopProcess } from './stop-process'

// The ground truth for the diagnosis's DNSSEC and CAA verdicts: Debian's pdns_recursor (dnsdist does not
// validate), validating everything under `test.` that a box of its own serves, with dnsdist in front as its
// RFC 8484 endpoint. Apart from the panel's resolver, so the other tests keep reading fresh answers through it.

/** What the tests see: the DoH endpoint and the box (its API writes records). */
export interface ValidatingPeers {
  url: string
  box: PeerBox
}

function run(command: string, args: string[], input?: string): string {
  const result = spawnSync(command, args, { encoding: 'utf8', input })
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status}): ${result.stdout}${result.stderr}`,
    )
  }
  return result.stdout
}

/**
 * Loads the fixture zones into `box` with pdnsutil, signs SIGNED_ZONES and answers each one's trust anchor: the
 * SHA-256 DS of its key for `signed.test`; for `bogus.test` that DS with its digest reversed, a DS matching
 * no key, as when the registrar still holds an old key's DS.
 */
function loadZones(box: PowerDnsProcess): Record<string, string> {
  const pdnsutil = (...args: string[]) => run('pdnsutil', [`--config-dir=${box.dir}`, ...args])
  for (const [zone, text] of Object.entries(FIXTURE_ZONES)) {
    const file = join(box.dir, `${zone}.zone`)
    writeFileSync(file, `$ORIGIN ${zone}.\n${text}\n`)
    pdnsutil('load-zone', zone, file)
  }
  const anchors: Record<string, string> = {}
  for (const zone of SIGNED_ZONES) {
    pdnsutil('secure-zone', zone)
    pdnsutil('rectify-zone', zone)
    // `signed.test. IN DS 24576 13 2 4942…5b ; ( SHA256 digest )`
    const line = pdnsutil('export-zone-ds', zone)
      .split('\n')
      .find((entry) => /\sDS\s+\d+\s+\d+\s+2\s/.test(entry))
    const [keyTag, algorithm, digestType, digest = ''] = line?.split(/\s+/).slice(3, 7) ?? []
    if (!keyTag) throw new Error(`pdnsutil export-zone-ds ${zone} gave no SHA-256 DS`)
    const anchor = zone === 'bogus.test' ? [...digest].reverse().join('') : digest
    anchors[zone] = `${keyTag} ${algorithm} ${digestType} ${anchor}`
  }
  return anchors
}

/** pdns_recursor, validating (dnssec=validate, as public resolvers do) from the given trust anchors only. */
class RecursorProcess {
  private child: ChildProcess | null = null
  private log = ''

  constructor(
    readonly dir: string,
    readonly dnsPort: number,
    boxDnsPort: number,
    anchors: Record<string, string>,
  ) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, 'trust-anchors.lua'),
      // No root anchor: the fixture zones are the only secure islands; the rest of `test.` is insecure.
      ['clearTA()', ...Object.entries(anchors).map(([zone, ds]) => `addTA('${zone}', '${ds}')`), ''].join(
        '\n',
      ),
    )
    writeFileSync(
      join(dir, 'recursor.conf'),
      [
        'local-address=127.0.0.1',
        `local-port=${dnsPort}`,
        `socket-dir=${dir}`,
        'setuid=',
        'setgid=',
        'security-poll-suffix=',
        'threads=1',
        'dnssec=validate',
        `lua-config-file=${join(dir, 'trust-anchors.lua')}`,
        `forward-zones=test=127.0.0.1:${boxDnsPort}`,
        // Nothing leaves the machine: no address may be queried, forwarders excepted.
        'dont-query=0.0.0.0/0, ::/0',
        // Answers come from the record cache, which wipeCache clears after a test writes.
        'disable-packetcache=yes',
        '',
      ].join('\n'),
    )
  }

  private control(...args: string[]): string {
    return run('rec_control', [`--config-dir=${this.dir}`, `--socket-dir=${this.dir}`, ...args])
  }

  async start(): Promise<void> {
    const child = spawn('pdns_recursor', [`--config-dir=${this.dir}`, '--daemon=no', '--disable-syslog'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.child = child
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        this.log = (this.log + chunk).slice(-4000)
      })
    }
    for (let attempt = 0; attempt < 100 && child.exitCode === null; attempt++) {
      if (spawnSync('rec_control', [`--socket-dir=${this.dir}`, 'ping']).status === 0) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await this.stop()
    throw new Error(`pdns_recursor did not start:\n${this.log}`)
  }

  /** Forgets what the recursor cached at and under `name`. */
  wipeCache(name: string): void {
    this.control('wipe-cache', `${name}$`)
  }

  async stop(): Promise<void> {
    const child = this.child
    this.child = null
    await stopProcess(child)
  }
}

/**
 * Loads and signs the fixture zones into a box (index 2, not one of the panel's) and starts it, then the recursor and
 * its DoH endpoint; pushes their stops onto `stops`. `exclude`: ports not to take.
 */
export async function startValidatingResolver(
  root: string,
  stops: (() => Promise<void> | void)[],
  exclude: readonly number[],
): Promise<ValidatingPeers & { wipeCache: (name: string) => void }> {
  const [api = 0, boxDns = 0, recursorDns = 0, doh = 0, dohDns = 0] = await freePorts(5, exclude)
  const box = new PowerDnsProcess(root, 2, api, boxDns)
  // Zones pdnsutil makes behind a running server's back stay unknown to it until its zone cache refreshes.
  const anchors = loadZones(box)
  stops.push(() => box.stop())
  await box.start()
  const recursor = new RecursorProcess(join(root, 'recursor'), recursorDns, boxDns, anchors)
  stops.push(() => recursor.stop())
  await recursor.start()
  const dir = join(root, 'dnsdist-validating')
  mkdirSync(dir)
  // dnsdist's default health check asks for a.root-servers.net, which this recursor never resolves.
  const front = new ResolverProcess(dir, doh, dohDns, [recursorDns], 'test.')
  stops.push(() => front.stop())
  await front.start()
  return { url: front.url, box: box.box, wipeCache: (name) => recursor.wipeCache(name) }
}

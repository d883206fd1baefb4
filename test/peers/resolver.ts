import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stopProcess } from './stop-process'

// The panel's resolver in the peers suite: Debian's dnsdist in front of the PowerDNS boxes, serving RFC 8484
// DNS over HTTP on 127.0.0.1 (no certificate: plain HTTP, which the development outbound rule allows).

/**
 * dnsdist forwarding to the boxes; DoH at `url`, classic DNS on `dnsPort`. `checkName`: the name its health
 * checks ask for instead of a.root-servers.net (for a recursor that resolves only the suite's names).
 */
export class ResolverProcess {
  private child: ChildProcess | null = null
  private log = ''

  constructor(
    readonly dir: string,
    readonly dohPort: number,
    readonly dnsPort: number,
    boxDnsPorts: readonly number[],
    checkName?: string,
  ) {
    const check = checkName ? `, checkName="${checkName}"` : ''
    writeFileSync(
      join(dir, 'dnsdist.conf'),
      [
        // No security polling: nothing may leave the machine.
        'setSecurityPollSuffix("")',
        `setLocal("127.0.0.1:${dnsPort}")`,
        'setServFailWhenNoServer(true)',
        // A short health check so a stopped box is skipped quickly; the zones' own SOA is not known here.
        ...boxDnsPorts.map(
          (port) => `newServer({address="127.0.0.1:${port}", checkInterval=1, maxCheckFailures=1${check}})`,
        ),
        'setPoolServerPolicy(firstAvailable, "")',
        // A top-level domain (where a CA's CAA climb ends) holds nothing here, as on the internet no TLD has CAA:
        // answered empty, as a recursive resolver does, not with the boxes' REFUSED for a zone they do not hold.
        // (QNameLabelsCountRule(min, max) matches a name with fewer or more labels: negated, exactly one.)
        'addAction(NotRule(QNameLabelsCountRule(1, 1)), RCodeAction(DNSRCode.NOERROR))',
        `addDOHLocal("127.0.0.1:${dohPort}", nil, nil, "/dns-query")`,
        '',
      ].join('\n'),
    )
  }

  get url(): string {
    return `http://127.0.0.1:${this.dohPort}/dns-query`
  }

  /** Starts dnsdist and resolves once its DoH endpoint answers a query. */
  async start(): Promise<void> {
    const child = spawn(
      'dnsdist',
      ['--supervised', '--disable-syslog', '-C', join(this.dir, 'dnsdist.conf')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    this.child = child
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        this.log = (this.log + chunk).slice(-4000)
      })
    }
    // A query for the root's SOA, id 0, recursion desired (the boxes answer REFUSED: any DNS answer will do).
    const probe = `${this.url}?dns=AAABAAABAAAAAAAAAAAGAAE`
    for (let attempt = 0; attempt < 100 && child.exitCode === null; attempt++) {
      const ready = await fetch(probe, { headers: { accept: 'application/dns-message' } }).then(
        (response) => response.ok,
        () => false,
      )
      if (ready) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await this.stop()
    throw new Error(`dnsdist did not serve DoH on ${this.url}:\n${this.log}`)
  }

  /** Stops dnsdist and resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child
    this.child = null
    await stopProcess(child)
  }
}

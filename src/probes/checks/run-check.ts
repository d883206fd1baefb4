import type { Env } from '../../env'
import { CertConfigSchema, DnsConfigSchema, HttpConfigSchema, TcpConfigSchema } from '../config'
import type { CheckResult, MonitorSnapshot } from '../monitor/api'
import { checkCert } from './cert'
import { checkDns } from './dns'
import { checkHttp } from './http'
import { checkTcp } from './tcp'
import type { Verdict } from './verdict'

/** What runCheck needs of a probe. */
export type CheckTarget = Pick<
  MonitorSnapshot,
  'id' | 'type' | 'targetKind' | 'targetId' | 'target' | 'config'
>

/** Runs one check of the probe from the edge: what it found (see runCheck). */
export function checkVerdict(env: Env, probe: CheckTarget): Promise<Verdict> {
  // Parsing narrows the stored config to the type's keys (and fills any key added since it was stored).
  switch (probe.type) {
    case 'http':
      return checkHttp(probe.target, HttpConfigSchema.parse(probe.config))
    case 'tcp':
      return checkTcp(env, probe.target, TcpConfigSchema.parse(probe.config))
    case 'dns':
      return checkDns(env, probe.target, DnsConfigSchema.parse(probe.config))
    case 'cert':
      return checkCert(env, probe, CertConfigSchema.parse(probe.config))
    case 'heartbeat':
      throw new Error(
        `runCheck: probe ${probe.id} is a heartbeat, which is judged by its pings, never checked`,
      )
  }
}

/**
 * Runs one check of an http, tcp, dns or cert probe. A failing target is a `down` (or `degraded`) result with a
 * one-line detail, never an exception; it throws only when asked to check a heartbeat.
 */
export async function runCheck(env: Env, probe: CheckTarget, checkId: string): Promise<CheckResult> {
  const at = Date.now()
  const verdict = await checkVerdict(env, probe)
  return { checkId, at, ...verdict }
}

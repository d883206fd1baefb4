import type { Vhost } from '../agent-contract/v1'
import type { Env } from '../env'
import { isProduction } from '../lib/outbound-url'
import { invalid } from '../rpc/errors'
import { externalNameProblem, specialUseSuffix } from './hostname'

/**
 * 400 naming `hostname` unless its suffix is acceptable: anything in a zone the panel controls (a self-hosted zone
 * or one a connected DNS account holds); outside them a name under a public suffix, or a special-use name when
 * ENVIRONMENT is development or the certificates come from pebble. Shared by probe, register and domains.attach.
 */
export async function requireAcceptedSuffix(
  env: Pick<Env, 'ENVIRONMENT'>,
  hostname: string,
  place: { controlled: boolean; issuer: () => Promise<Vhost['issuer']> },
): Promise<void> {
  if (place.controlled) return
  const specialUseAllowed =
    specialUseSuffix(hostname) !== null && (!isProduction(env) || (await place.issuer()) === 'pebble')
  const problem = externalNameProblem(hostname, specialUseAllowed)
  if (problem) throw invalid('hostname', problem)
}

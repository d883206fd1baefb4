import { eq } from 'drizzle-orm'
import { keepObservation } from '../agent-callbacks/observations'
import type { CertificateObservation } from '../agent-contract/v1'
import { failUnless, isGuardFailure } from '../db/batch-guard'
import { type Db, db } from '../db/client'
import { isConstraintError } from '../db/constraint-error'
import { domains } from '../db/schema/domains'
import { instances, nodes, sites } from '../db/schema/fleet'
import { nodeEdgeVersions, routes } from '../db/schema/routes'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { backoffSeconds } from '../lib/backoff'
import { displayTime } from '../lib/display-time'
import { openSecret } from '../lib/secrets'
import {
  type NodeAgent,
  NodeAgentError,
  primeCertificate,
  renewCertificate,
  smokeTest,
} from '../outside/node-agent'
import { addHttpRoute, enqueueReconcile } from '../routes/http-route'
import { AppError } from '../rpc/errors'
import { advance, entry, fail, waitFor } from './chain'
import { MAX_STEP_ATTEMPTS } from './dns-steps'
import { type DomainRecord, stillGeneration } from './rows'

/**
 * How long route setup waits for the node to confirm the route. A reconcile chain turns the route active or
 * error within about 3 minutes (routes/reconcile-job.ts), so this ends only a wait whose chain was lost or kept
 * being superseded, naming the node's last error.
 */
export const ROUTE_WINDOW_MS = 4 * 60 * 1000
/** The longest route setup waits between two looks at the route, so an error shows within half a minute. */
const ROUTE_POLL_MAX_SECONDS = 30

const RETRY_TODO = 'Fix that on the node, then call domains.attach again.'

/** The agent of the node that hosts the site, or null when the chain to it is gone. */
export async function agentForSite(
  env: Env,
  database: Db,
  siteId: string,
): Promise<(NodeAgent & { nodeId: string }) | null> {
  const [node] = await database
    .select({ nodeId: nodes.id, agentUrl: nodes.agentUrl, sealed: nodes.agentSecretSealed })
    .from(sites)
    .innerJoin(instances, eq(instances.id, sites.instanceId))
    .innerJoin(nodes, eq(nodes.id, instances.nodeId))
    .where(eq(sites.id, siteId))
  if (!node) return null
  return { nodeId: node.nodeId, agentUrl: node.agentUrl, agentSecret: await openSecret(env, node.sealed) }
}

// An agent that did not answer, failed inside or asked to slow down may do it later; a refusal will not change.
function passing(error: NodeAgentError): boolean {
  return error.status === null || error.status === 429 || error.status >= 500
}

function agentFailure(env: Env, row: DomainRecord, error: unknown, todo: string): Promise<JobOutcome> {
  if (!(error instanceof NodeAgentError)) throw error
  if (passing(error) && row.attempts + 1 < MAX_STEP_ATTEMPTS)
    return waitFor(
      env,
      row,
      entry(row.step, 'waiting', `${error.message}; trying again`),
      backoffSeconds(row.attempts + 1),
    )
  return fail(env, row, row.step, error.message, todo)
}

// The route and the domain's pointer to it in one batch, only while the chain is still this generation.
async function addRoute(env: Env, row: DomainRecord): Promise<JobOutcome> {
  const database = db(env.DB)
  let added: Awaited<ReturnType<typeof addHttpRoute>>
  try {
    added = await addHttpRoute(database, { siteId: row.siteId, hostname: row.hostname, issuer: row.issuer })
    await database.batch([
      failUnless(database, stillGeneration(row)),
      ...added.writes,
      database
        .update(domains)
        .set({ routeId: added.routeId, certState: 'pending', updatedAt: new Date() })
        .where(eq(domains.id, row.id)),
    ])
  } catch (error) {
    if (isGuardFailure(error)) return { kind: 'done' }
    if (error instanceof AppError) return fail(env, row, 'route-setup', error.detail, RETRY_TODO)
    if (isConstraintError(error, 'UNIQUE'))
      return fail(
        env,
        row,
        'route-setup',
        `another live route holds ${row.hostname}`,
        'Remove that route, then call domains.attach again.',
      )
    throw error
  }
  await enqueueReconcile(env, added.nodeId)
  return waitFor(
    env,
    { ...row, routeId: added.routeId },
    entry('route-setup', 'running', `route ${added.routeId} queued for the node`),
    5,
  )
}

/** Route setup: an http route for the hostname, until the node's agent confirms it (active) or refuses it. */
export async function routeSetup(env: Env, row: DomainRecord): Promise<JobOutcome> {
  if (!row.routeId) return addRoute(env, row)
  const database = db(env.DB)
  const [route] = await database.select().from(routes).where(eq(routes.id, row.routeId))
  if (!route || route.status === 'removed')
    return fail(env, row, 'route-setup', `the route ${row.routeId} was removed`, 'Call domains.attach again.')
  if (route.status === 'active')
    return advance(
      env,
      row,
      entry(
        'route-setup',
        'passed',
        `the node serves the route at configVersion ${route.edgeConfig.appliedVersion}`,
      ),
      'certificate',
    )
  if (route.status === 'error')
    return fail(
      env,
      row,
      'route-setup',
      route.edgeConfig.error ?? 'the node did not apply the route',
      RETRY_TODO,
    )
  const [node] = await database
    .select({ lastError: nodeEdgeVersions.lastError })
    .from(nodeEdgeVersions)
    .where(eq(nodeEdgeVersions.nodeId, route.nodeId))
  const lastError = node?.lastError ? ` (its last error: ${node.lastError})` : ''
  const waited = Date.now() - row.stepStartedAt.getTime()
  if (waited >= ROUTE_WINDOW_MS)
    return fail(
      env,
      row,
      'route-setup',
      `the node did not confirm the route within ${ROUTE_WINDOW_MS / 60_000} minutes${lastError}`,
      'Check the node agent, then call domains.attach again.',
    )
  return waitFor(
    env,
    row,
    entry('route-setup', 'waiting', `waiting for the node to confirm the route${lastError}`),
    Math.min(backoffSeconds(row.attempts + 1), ROUTE_POLL_MAX_SECONDS),
  )
}

/** Certificate: the agent primes on-demand issuance; the observation is kept like a reported one. */
export async function certificate(env: Env, row: DomainRecord): Promise<JobOutcome> {
  const database = db(env.DB)
  const agent = await agentForSite(env, database, row.siteId)
  if (!agent)
    return fail(
      env,
      row,
      'certificate',
      "the site's instance or node is gone",
      'Attach the hostname to a site that exists.',
    )
  let observed: CertificateObservation
  try {
    observed = await primeCertificate(agent, row.hostname)
  } catch (error) {
    return agentFailure(
      env,
      row,
      error,
      `Check that ${row.hostname} reaches the node and that the ${row.issuer} issuer answers, then call domains.attach again.`,
    )
  }
  return advance(
    env,
    row,
    entry(
      'certificate',
      'passed',
      `serial ${observed.serial} from ${observed.issuer}, valid until ${displayTime(observed.notAfter)}`,
    ),
    'smoke-test',
    { certExpiresAt: new Date(observed.notAfter), certSerial: observed.serial },
    [keepObservation(database, { ownerId: row.id, nodeId: agent.nodeId }, observed, new Date())],
  )
}

/** Smoke test: one HTTPS request through the node reaches the site; only then is the domain green. */
export async function smoke(env: Env, row: DomainRecord): Promise<JobOutcome> {
  const agent = await agentForSite(env, db(env.DB), row.siteId)
  if (!agent)
    return fail(
      env,
      row,
      'smoke-test',
      "the site's instance or node is gone",
      'Attach the hostname to a site that exists.',
    )
  try {
    const result = await smokeTest(agent, row.hostname)
    if (!result.ok)
      return fail(
        env,
        row,
        'smoke-test',
        result.detail,
        `Make the site answer HTTPS for ${row.hostname}, then call domains.attach again.`,
      )
    return advance(env, row, entry('smoke-test', 'passed', result.detail), 'green', {
      certState: 'issued',
      failureRemedy: null,
    })
  } catch (error) {
    return agentFailure(env, row, error, RETRY_TODO)
  }
}

/** Renew: the agent drops the certificate and primes a new one; the serial must change. No DNS verify. */
export async function renew(env: Env, row: DomainRecord): Promise<JobOutcome> {
  const database = db(env.DB)
  const agent = await agentForSite(env, database, row.siteId)
  const todo = 'Call domains.renew again once the node can obtain a certificate.'
  if (!agent) return fail(env, row, 'renew', "the site's instance or node is gone", todo)
  let observed: CertificateObservation
  try {
    observed = await renewCertificate(agent, row.hostname)
  } catch (error) {
    return agentFailure(env, row, error, todo)
  }
  if (observed.serial === row.certSerial)
    return fail(
      env,
      row,
      'renew',
      `the node still serves the certificate with serial ${observed.serial}`,
      todo,
    )
  return advance(
    env,
    row,
    entry(
      'renew',
      'passed',
      `new serial ${observed.serial} (was ${row.certSerial ?? 'unknown'}), valid until ${displayTime(observed.notAfter)}`,
    ),
    'green',
    {
      certState: 'issued',
      certExpiresAt: new Date(observed.notAfter),
      certSerial: observed.serial,
      failureRemedy: null,
    },
    [keepObservation(database, { ownerId: row.id, nodeId: agent.nodeId }, observed, new Date())],
  )
}

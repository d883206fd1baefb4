import { eq, lt } from 'drizzle-orm'
import type { Context } from 'hono'
import type { z } from 'zod'
import { type Db, db } from '../db/client'
import { agentNonces, nodes } from '../db/schema/fleet'
import type { AppEnv } from '../env'
import { verifyAgentSignature } from '../lib/agent-signature'
import { openSecret } from '../lib/secrets'
import { AppError, validationFailed } from '../rpc/errors'
import { MAX_BODY_BYTES } from '../rpc/guard'
import { readCappedBody } from './capped-body'

/** A node's callback that passed: who sent it, its raw body, and the database it was checked against. */
export interface NodeCallback {
  nodeId: string
  raw: string
  database: Db
}

// Inserted with the nonces that passed, in the same batch as the pruning of those out of the window; the primary
// key (node, nonce) refuses the second insert of a nonce, whichever isolate tries it.
async function claimNonce(database: Db, nodeId: string, nonce: string, until: number): Promise<boolean> {
  const [, claimed] = await database.batch([
    database.delete(agentNonces).where(lt(agentNonces.expiresAt, new Date())),
    database
      .insert(agentNonces)
      .values({ nodeId, nonce, expiresAt: new Date(until) })
      .onConflictDoNothing()
      .returning({ nonce: agentNonces.nonce }),
  ])
  return claimed.length === 1
}

/**
 * Authenticates a node → panel callback (contract v2): the body is read up to 64 KiB (413 beyond, before
 * anything else), the signature must cover this direction, method and path with the secret of the node named
 * by `x-node-id`, and its nonce must not have been accepted before. An unknown node and a bad signature get one
 * and the same 401; a replay gets its own 401.
 */
export async function authenticateCallback(c: Context<AppEnv>, path: string): Promise<NodeCallback> {
  const raw = await readCappedBody(c.req.raw, MAX_BODY_BYTES)
  const nodeId = c.req.header('x-node-id') ?? ''
  const database = db(c.env.DB)
  const [node] = nodeId
    ? await database.select({ secret: nodes.agentSecretSealed }).from(nodes).where(eq(nodes.id, nodeId))
    : []
  // An unknown node's request is checked against a secret nobody holds, so its answer is made like a bad
  // signature's, reason included.
  const secret = node ? await openSecret(c.env, node.secret) : crypto.randomUUID()
  const verdict = await verifyAgentSignature(
    secret,
    { direction: 'agent-to-panel', method: c.req.method, path, body: raw },
    c.req.raw.headers,
  )
  if (!verdict.ok || !node) {
    const reason = verdict.ok ? 'the signature does not match' : verdict.reason
    throw new AppError('unauthenticated', `unknown node or bad signature: ${reason}`)
  }
  if (!(await claimNonce(database, nodeId, verdict.nonce, verdict.rememberUntil))) {
    throw new AppError('unauthenticated', 'this request was already received (its nonce was used)')
  }
  return { nodeId, raw, database }
}

/** A callback's body read against its contract schema: 400 `invalid_json`, or `validation_failed` naming each field. */
export function parseCallbackBody<T extends z.ZodType>(raw: string, schema: T): z.infer<T> {
  let body: unknown
  try {
    body = JSON.parse(raw)
  } catch {
    throw new AppError('invalid_json', 'the request body is not valid JSON')
  }
  const parsed = schema.safeParse(body)
  if (!parsed.success) throw validationFailed(parsed.error)
  return parsed.data
}

import { z } from 'zod'
import { AppliedSchema, ForwardSchema, MAX_VHOSTS_PER_STATE, VhostSchema } from './v1'

// Contract v2, the delta additions (agent 0.4.0): a change costs what the change is. Beside the whole state of
// `POST /v2/edge/apply` (still accepted at any time, and all an agent before 0.4.0 knows), the panel sends what
// changed since the version the agent serves, or, when the agent is elsewhere, the whole state in parts. An
// agent before 0.4.0 answers 404 to both new paths; the panel then pushes the whole state to /v2/edge/apply.

export const EDGE_DELTA_PATHS = {
  /** `POST`: the entries that changed between `baseVersion` and `configVersion`. */
  changes: '/v2/edge/changes',
  /** `POST`: one part of a whole state; the last part received applies it. */
  parts: '/v2/edge/parts',
} as const

/** The panel's callback for an agent catching up with a large state: `POST`, signed, plus `x-node-id`. */
export const EDGE_STATE_PARTS_CALLBACK = '/api/agent/v2/edge-state-parts'

/** Most vhosts in one changes body, one part, or one page of the catch-up callback (about 1.5 MB of JSON). */
export const MAX_VHOSTS_PER_BODY = 10_000

/** Most forwards in one changes body or part: every forward a state may hold. */
export const MAX_FORWARDS_PER_BODY = 1000

export const ForwardKeySchema = ForwardSchema.pick({ listenPort: true, proto: true }).strict()
export type ForwardKey = z.infer<typeof ForwardKeySchema>

/**
 * `POST /v2/edge/changes`: applies on `baseVersion` only. Each vhost replaces the one of its hostname (or adds
 * it), each forward the one of its proto/port; the removals drop theirs (a removal of an entry not served is not
 * an error). A hostname or proto/port both set and removed is malformed (400).
 *
 * Answers: `Applied` when the agent now serves `configVersion` (or a newer one: it keeps that and answers it,
 * as /v2/edge/apply does; a replay of a version already served answers the same); 409 problem
 * `version_mismatch` with `appliedVersion` when it serves neither `baseVersion` nor anything newer than
 * `configVersion` — the panel then sends the whole state.
 */
export const EdgeChangesSchema = z
  .strictObject({
    baseVersion: z.number().int().min(0),
    configVersion: z.number().int().min(1),
    vhosts: z.array(VhostSchema).max(MAX_VHOSTS_PER_BODY),
    removeHostnames: z.array(z.string().min(1).max(253)).max(MAX_VHOSTS_PER_BODY),
    forwards: z.array(ForwardSchema).max(MAX_FORWARDS_PER_BODY),
    removeForwards: z.array(ForwardKeySchema).max(MAX_FORWARDS_PER_BODY),
  })
  .refine((changes) => changes.configVersion > changes.baseVersion, {
    path: ['configVersion'],
    message: 'configVersion must be greater than baseVersion',
  })
export type EdgeChanges = z.infer<typeof EdgeChangesSchema>

/** The 409 problem an agent answers to changes on a version it does not serve. */
export const VersionMismatchSchema = z.object({
  code: z.literal('version_mismatch'),
  appliedVersion: z.number().int().min(0),
})

/**
 * `POST /v2/edge/parts`: part `part` (0-based) of `parts` of the whole state at `configVersion`; forwards travel
 * in part 0 only. The agent keeps the parts of one version (a part of a newer version drops an unfinished older
 * one; a part received twice replaces itself) and applies the whole state, exactly as /v2/edge/apply would, when
 * it holds all of them.
 */
export const EdgeStatePartSchema = z
  .strictObject({
    configVersion: z.number().int().min(1),
    part: z.number().int().min(0),
    parts: z
      .number()
      .int()
      .min(1)
      .max(Math.ceil(MAX_VHOSTS_PER_STATE / MAX_VHOSTS_PER_BODY)),
    vhosts: z.array(VhostSchema).max(MAX_VHOSTS_PER_BODY),
    forwards: z.array(ForwardSchema).max(1000),
  })
  .refine((body) => body.part < body.parts, { path: ['part'], message: 'part must be less than parts' })
  .refine((body) => body.part === 0 || body.forwards.length === 0, {
    path: ['forwards'],
    message: 'forwards travel in part 0 only',
  })
export type EdgeStatePart = z.infer<typeof EdgeStatePartSchema>

/** The answer to a part: how many of the version's parts the agent holds, and, once all, what it applied. */
export const PartReceivedSchema = z.object({
  configVersion: z.number().int().min(1),
  partsReceived: z.number().int().min(0),
  parts: z.number().int().min(1),
  applied: AppliedSchema.nullable(),
})
export type PartReceived = z.infer<typeof PartReceivedSchema>

/**
 * The catch-up callback `POST <panel>/api/agent/v2/edge-state-parts {cursor}` (null: the first page): one page
 * of the node's current desired state, vhosts in hostname order, forwards on the first page only. The agent
 * asks again with `nextCursor` until it is null; when a page carries another `configVersion` than the first,
 * the state changed meanwhile and the agent starts over. `configVersion` 0 with nothing: no state yet.
 */
export const EdgeStatePageRequestSchema = z.strictObject({ cursor: z.string().max(300).nullable() })
export const EdgeStatePageSchema = z.object({
  configVersion: z.number().int().min(0),
  vhosts: z.array(VhostSchema).max(MAX_VHOSTS_PER_BODY),
  forwards: z.array(ForwardSchema).max(1000),
  nextCursor: z.string().max(300).nullable(),
})
export type EdgeStatePage = z.infer<typeof EdgeStatePageSchema>

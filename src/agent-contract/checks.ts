import { z } from 'zod'

// Probe checks run from a node (contract v2, added with agent 0.3.0). When a check of a probe located on a node
// is due, the panel sends that node's agent a signed `POST /v2/checks/run`; the agent answers at once that it took
// the check, runs it from the node, and posts the result back, signed, to `POST /api/agent/v2/check-results`.
// An agent from before this addition answers 404 (no such call), and the panel counts the location as failed.

const TimeoutSchema = z.number().int().min(500).max(30_000)
const StatusSchema = z.number().int().min(100).max(599)

/** What to check and how: the probe's type, its target, and the keys of its config a check reads. */
export const NodeCheckSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('http'),
    /** An absolute http(s) URL. */
    target: z.string().min(1).max(2048),
    timeoutMs: TimeoutSchema,
    method: z.enum(['GET', 'HEAD']),
    expectedStatus: z.strictObject({ min: StatusSchema, max: StatusSchema }),
    keyword: z.string().min(1).max(200).optional(),
    slowMs: z.number().int().min(1).max(30_000).optional(),
    followRedirects: z.boolean(),
  }),
  z.strictObject({
    type: z.literal('tcp'),
    /** `host:port`, an IPv6 address in brackets. */
    target: z.string().min(1).max(300),
    timeoutMs: TimeoutSchema,
  }),
  z.strictObject({
    type: z.literal('dns'),
    /** The name looked up, with the node's own resolver. */
    target: z.string().min(1).max(253),
    timeoutMs: TimeoutSchema,
    recordType: z.enum(['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'NS']),
    expectedValues: z.array(z.string().min(1).max(255)).max(20),
  }),
  z.strictObject({
    type: z.literal('cert'),
    /** `host` or `host:port` (443 by default). */
    target: z.string().min(1).max(300),
    timeoutMs: TimeoutSchema,
    certWarnDays: z.number().int().min(1).max(365),
  }),
])
export type NodeCheck = z.infer<typeof NodeCheckSchema>

/** Which check of which probe: the probe, the time the check was scheduled for (ms), and the node asked. */
const CheckIdentity = {
  probeId: z.string().min(1).max(64),
  scheduledAt: z.number().int().min(0),
  /** The node id the check runs from (the agent's own). */
  location: z.string().min(1).max(64),
}

/** `POST /v2/checks/run`: run this check now and post its result back. */
export const RunCheckRequestSchema = z.strictObject({
  ...CheckIdentity,
  check: NodeCheckSchema,
  /** Private ranges this node's operator lets its checks reach (the node's `checkAllowCidrs`); absent when none. */
  allowCidrs: z.array(z.string().min(1).max(64)).max(64).optional(),
})
export type RunCheckRequest = z.infer<typeof RunCheckRequestSchema>

/** The agent's answer to a run request: it took the check (the result follows as a callback). */
export const CheckTakenSchema = z.object({ accepted: z.literal(true) })

/** What a check found: `degraded` answered, but slowly or only in part. */
export const CheckVerdictSchema = z.strictObject({
  outcome: z.enum(['up', 'down', 'degraded']),
  latencyMs: z.number().int().min(0).max(600_000).nullable(),
  /** One line for people: "HTTP 200", "connect timed out after 10000 ms", "certificate valid until …". */
  detail: z.string().max(1000),
})
export type CheckVerdict = z.infer<typeof CheckVerdictSchema>

/** The agent → panel result: `POST <panel>/api/agent/v2/check-results`, signed, plus `x-node-id`. */
export const CheckResultReportSchema = CheckVerdictSchema.extend(CheckIdentity)
export type CheckResultReport = z.infer<typeof CheckResultReportSchema>

/** The panel's answer: the result was recorded for its check. */
export const CheckResultRecordedSchema = z.object({ recorded: z.literal(true) })
export type CheckResultRecorded = z.infer<typeof CheckResultRecordedSchema>

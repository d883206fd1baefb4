import { SELF } from 'cloudflare:test'
import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema'
import { procedures } from '../../src/rpc/registry'

const DOCUMENT_URL = 'https://panel.test/api/v1/openapi.json'

interface MediaType {
  schema?: Schema
}
interface ResponseObject {
  headers?: Record<string, { required?: boolean }>
  content?: Record<string, MediaType>
}
interface Operation {
  operationId: string
  'x-procedure': string
  requestBody?: { content?: Record<string, MediaType> }
  responses: Record<string, ResponseObject>
}
interface Document {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Schema> }
}

const EVENT_STREAM = 'text/event-stream'

/** One Server-Sent Event with data, as a browser's EventSource would dispatch it. */
export interface StreamEvent {
  /** The last `id:` seen so far on the stream (SSE keeps it across events). */
  id: string
  event: string
  data: string
}

/**
 * Parses Server-Sent Events text, written independently of the client's parser: the complete events that carry
 * data (those ended by a blank line; comments and `retry:` are skipped), and `rest`, the unfinished tail.
 */
export function parseEventStream(text: string): { events: StreamEvent[]; rest: string } {
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n')
  const rest = blocks.pop() ?? ''
  const events: StreamEvent[] = []
  let id = ''
  for (const block of blocks) {
    let event = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon === -1 ? line : line.slice(0, colon)
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'data') data.push(value)
      else if (field === 'id') id = value
      else if (field === 'event') event = value
    }
    if (data.length > 0) events.push({ id, event, data: data.join('\n') })
  }
  return { events, rest }
}

/**
 * Reads an answer's body for checking: all of it, except an event stream, which is read up to its first event
 * (or its end) and then cancelled, so no test leaves a stream open.
 */
export async function readAnswer(response: Response): Promise<string> {
  if (mediaType(response.headers) !== EVENT_STREAM || !response.body) return response.text()
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  try {
    // Up to the first event, or the bare id line an empty snapshot sends instead.
    while (parseEventStream(text).events.length === 0 && !/(^|\n)id: [^\n]*\n\n/.test(text)) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  } finally {
    await reader.cancel()
  }
  return text.slice(0, text.length - parseEventStream(text).rest.length)
}

/** One request and its answer, as the test helpers saw them. */
export interface Exchange {
  method: string
  url: string
  requestHeaders: Headers
  requestBody: string | undefined
  status: number
  responseHeaders: Headers
  responseText: string
}

let documentPromise: Promise<Document> | undefined
const validators = new Map<string, Validator>()

/** The live document, fetched once per test file. */
function loadDocument(): Promise<Document> {
  documentPromise ??= SELF.fetch(DOCUMENT_URL).then(async (response) => {
    if (response.status !== 200) throw new Error(`the OpenAPI document answered ${response.status}`)
    return (await response.json()) as Document
  })
  return documentPromise
}

/** Validates against one schema of the document; `$ref`s resolve inside the document. */
function validate(doc: Document, pointer: string, schema: Schema, instance: unknown): OutputUnit[] {
  let validator = validators.get(pointer)
  if (!validator) {
    validator = new Validator({ ...schema, components: doc.components } as Schema, '2020-12', false)
    validators.set(pointer, validator)
  }
  const result = validator.validate(instance)
  // The deepest units name the field; the outer ones only repeat that a subschema failed.
  return result.valid
    ? []
    : result.errors
        .filter((unit) => !/\/(\$ref|anyOf|oneOf|allOf|properties)$/.test(unit.keywordLocation))
        .slice(0, 5)
}

function describe(units: OutputUnit[]): string {
  return units.map((unit) => `${unit.instanceLocation || '#'}: ${unit.error}`).join('; ')
}

function parseJson(text: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (text === undefined) return { ok: false }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

function mediaType(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0]?.trim() ?? ''
}

function checkRequest(doc: Document, op: Operation, exchange: Exchange, failures: string[]): void {
  const content = op.requestBody?.content
  if (!content || mediaType(exchange.requestHeaders) !== 'application/json') return
  const schema = content['application/json']?.schema
  const body = parseJson(exchange.requestBody)
  if (!schema || !body.ok) return
  const units = validate(doc, `${op.operationId} request`, schema, body.value)
  if (units.length > 0 && (exchange.status < 400 || exchange.status >= 500)) {
    failures.push(
      `the document refuses the request body (${describe(units)}) but the panel answered ${exchange.status}`,
    )
  }
  // A body the document accepts may still fail a refinement (custom code, or a handler's check against the
  // stored state); every other refusal by the input schema is something the document should have said.
  const parsed = procedures.get(op['x-procedure'])?.input.safeParse(body.value)
  const unexpressed =
    parsed?.success === false ? parsed.error.issues.filter((issue) => issue.code !== 'custom') : []
  if (units.length === 0 && unexpressed.length > 0) {
    const issues = unexpressed.map((issue) => `/${issue.path.join('/')}: ${issue.message}`).join('; ')
    failures.push(`the document accepts the request body but the input schema refuses it: ${issues}`)
  }
}

function checkResponse(doc: Document, op: Operation, exchange: Exchange, failures: string[]): void {
  const documented = op.responses[String(exchange.status)]
  if (!documented) {
    failures.push(
      `status ${exchange.status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`,
    )
    return
  }
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required && !exchange.responseHeaders.has(name))
      failures.push(`header ${name} is documented but missing`)
  }
  if (!documented.content) {
    if (exchange.responseText !== '') failures.push('the documented answer has no body, but one was sent')
    return
  }
  const type = mediaType(exchange.responseHeaders)
  const schema = documented.content[type]?.schema
  if (!schema) {
    failures.push(
      `content type ${type} is not documented (documented: ${Object.keys(documented.content).join(', ')})`,
    )
    return
  }
  if (type === EVENT_STREAM) {
    checkFrames(doc, `${op.operationId} ${exchange.status} ${type}`, schema, exchange.responseText, failures)
    return
  }
  // A text answer (the metrics exposition) documented as a string is that string.
  if (schema.type === 'string' && !type.endsWith('json')) return
  const body = parseJson(exchange.responseText)
  if (!body.ok) {
    failures.push(`the body is not JSON: ${exchange.responseText.slice(0, 200)}`)
    return
  }
  const units = validate(doc, `${op.operationId} ${exchange.status} ${type}`, schema, body.value)
  if (units.length > 0) failures.push(`the body does not match the documented schema: ${describe(units)}`)
  if (exchange.status === 200) failures.push(...trustedOutputProblems(op['x-procedure'], body.value))
}

// JSON with every object's keys sorted, so two values compare equal whatever order their keys came in.
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  )
}

/**
 * The transport sends a `trustedOutput` procedure's answer without the output parse, so the parse must hand the
 * sent body back unchanged: no issue, nothing stripped, nothing transformed. Checked on every 200 the tests see.
 */
export function trustedOutputProblems(procedure: string, body: unknown): string[] {
  const proc = procedures.get(procedure)
  if (!proc?.trustedOutput) return []
  const parsed = proc.output.safeParse(body)
  if (!parsed.success) return [`${procedure} sent an output its schema refuses: ${parsed.error.message}`]
  if (canonical(parsed.data) !== canonical(body))
    return [`${procedure} sent an output its schema would change: ${canonical(body).slice(0, 300)}`]
  return []
}

// A stream's documented schema is text whose `contentSchema` is one event's data: every event that carries data
// must be JSON matching it.
function checkFrames(doc: Document, pointer: string, stream: Schema, text: string, failures: string[]): void {
  const schema = (stream as { contentSchema?: Schema }).contentSchema
  if (stream.type !== 'string' || !schema) {
    failures.push('an event stream is documented as text with a contentSchema for each event')
    return
  }
  for (const event of parseEventStream(text).events) {
    const data = parseJson(event.data)
    if (!data.ok) {
      failures.push(`an event's data is not JSON: ${event.data.slice(0, 200)}`)
      continue
    }
    const units = validate(doc, pointer, schema, data.value)
    if (units.length > 0)
      failures.push(`event ${event.id} does not match the documented schema: ${describe(units)}`)
  }
}

/** Undocumented paths (unknown procedures, /healthz, preflights) still answer errors as documented problems. */
function checkUndocumented(doc: Document, exchange: Exchange, failures: string[]): void {
  if (!exchange.responseHeaders.has('x-request-id')) failures.push('header x-request-id is missing')
  if (mediaType(exchange.responseHeaders) !== 'application/problem+json') return
  const problem = doc.components.schemas.Problem
  const body = parseJson(exchange.responseText)
  if (!problem || !body.ok) {
    failures.push('a problem answer without a Problem schema or a JSON body')
    return
  }
  const units = validate(doc, 'Problem', problem, body.value)
  if (units.length > 0) failures.push(`the problem body does not match Problem: ${describe(units)}`)
}

/**
 * Checks one exchange against the live OpenAPI document with a real JSON Schema validator: the answer's status,
 * headers and body must be documented for the operation, and the document must agree with the panel on whether
 * the request body is acceptable. Throws, naming the operation, the status and the JSON pointer.
 */
export async function assertContract(exchange: Exchange): Promise<void> {
  const doc = await loadDocument()
  const url = new URL(exchange.url)
  const op = doc.paths[url.pathname]?.[exchange.method.toLowerCase()]
  const failures: string[] = []
  if (op) {
    checkResponse(doc, op, exchange, failures)
    checkRequest(doc, op, exchange, failures)
  } else {
    checkUndocumented(doc, exchange, failures)
  }
  if (failures.length > 0) {
    const name = op ? op.operationId : `(undocumented ${exchange.method} ${url.pathname})`
    throw new Error(`OpenAPI contract: ${name} answered ${exchange.status}: ${failures.join(' | ')}`)
  }
}

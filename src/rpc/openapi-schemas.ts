import { z } from '@hono/zod-openapi'

/** A JSON Schema node of the generated document. */
export type JsonNode = Record<string, unknown>
type Components = Record<string, JsonNode>

const NULL_SCHEMA = { type: 'null' } as const
const ANNOTATIONS = ['description', 'title', 'example', 'examples', 'deprecated', 'default'] as const
const REF_PREFIX = '#/components/schemas/'

function isNode(value: unknown): value is JsonNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function nodes(value: unknown): JsonNode[] {
  return Array.isArray(value) ? value.filter(isNode) : []
}

function isNullSchema(node: JsonNode): boolean {
  return node.type === 'null' && Object.keys(node).length === 1
}

/** Strips the wrappers the generator looks through, noting whether one of them admits null. */
function peel(schema: z.ZodType): { inner: z.ZodType; nullable: boolean } {
  let inner = schema
  let nullable = false
  for (;;) {
    if (inner instanceof z.ZodNullable) nullable = true
    if (
      inner instanceof z.ZodNullable ||
      inner instanceof z.ZodOptional ||
      inner instanceof z.ZodDefault ||
      inner instanceof z.ZodPrefault ||
      inner instanceof z.ZodReadonly ||
      inner instanceof z.ZodNonOptional ||
      inner instanceof z.ZodCatch
    ) {
      inner = inner.def.innerType as z.ZodType
    } else if (inner instanceof z.ZodPipe) {
      // As the generator reads it: a preprocess documents its output, a transform its input.
      inner = (inner.def.in instanceof z.ZodTransform ? inner.def.out : inner.def.in) as z.ZodType
    } else if (inner instanceof z.ZodLazy) {
      inner = inner.def.getter() as z.ZodType
    } else {
      return { inner, nullable }
    }
  }
}

/** Removes null from a node's own type, enum and alternatives (a component the nullable variant polluted). */
function stripNull(node: JsonNode): void {
  if (Array.isArray(node.type)) {
    const types = node.type.filter((type) => type !== 'null')
    node.type = types.length === 1 ? types[0] : types
  }
  if (Array.isArray(node.enum)) node.enum = node.enum.filter((value) => value !== null)
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(node[key])) node[key] = nodes(node[key]).filter((member) => !isNullSchema(member))
  }
}

/**
 * The generator emits a nullable reference as `allOf: [$ref, {type: [X, "null"]}]` (which never accepts null)
 * or as the bare `$ref` (null lost). JSON Schema says it as `anyOf: [$ref, {type: "null"}]`.
 */
function nullableReference(node: JsonNode): JsonNode | undefined {
  if (typeof node.$ref === 'string' && Object.keys(node).length === 1) return { anyOf: [node, NULL_SCHEMA] }
  const [ref, extra, ...more] = nodes(node.allOf)
  if (!ref || typeof ref.$ref !== 'string' || more.length > 0) return undefined
  const { type: _type, enum: _enum, ...rest } = extra ?? {}
  const annotations = Object.fromEntries(
    ANNOTATIONS.flatMap((key) => (key in rest ? [[key, rest[key]]] : [])),
  )
  const structural = Object.keys(rest).filter((key) => !(ANNOTATIONS as readonly string[]).includes(key))
  const member = structural.length ? { allOf: [ref, rest] } : ref
  return { anyOf: [member, NULL_SCHEMA], ...annotations }
}

class Repair {
  private readonly seen = new WeakMap<object, WeakSet<object>>()

  constructor(private readonly components: Components) {}

  /** Walks a zod schema and the node generated from it together; answers the (possibly replaced) node. */
  walk(schema: z.ZodType, node: JsonNode): JsonNode {
    const { inner, nullable } = peel(schema)
    const replaced = nullable ? (nullableReference(node) ?? node) : node
    const pairs = this.seen.get(inner) ?? new WeakSet()
    this.seen.set(inner, pairs)
    if (pairs.has(replaced)) return replaced
    pairs.add(replaced)
    for (const target of this.targets(replaced, !inner.safeParse(null).success)) this.descend(inner, target)
    return replaced
  }

  /** The nodes that together describe one value: a reference's component, allOf members, a nullable's subject. */
  private targets(node: JsonNode, stripNullFromComponents: boolean): JsonNode[] {
    if (typeof node.$ref === 'string') {
      const component = this.components[node.$ref.slice(REF_PREFIX.length)]
      if (!component) return []
      if (stripNullFromComponents) stripNull(component)
      return [component, ...this.targets(component, stripNullFromComponents).slice(1)]
    }
    if (Array.isArray(node.allOf)) {
      return [node, ...nodes(node.allOf).flatMap((member) => this.targets(member, stripNullFromComponents))]
    }
    const anyOf = nodes(node.anyOf)
    const [subject, ...others] = anyOf.filter((member) => !isNullSchema(member))
    if (subject && others.length === 0 && anyOf.length === 2) return this.targets(subject, false)
    return [node]
  }

  private descend(schema: z.ZodType, node: JsonNode): void {
    if (schema instanceof z.ZodStringFormat) {
      stringFormat(schema, node)
    } else if (schema instanceof z.ZodObject) {
      const properties = isNode(node.properties) ? node.properties : {}
      for (const [key, child] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
        const property = properties[key]
        if (isNode(property)) properties[key] = this.walk(child, property)
      }
    } else if (schema instanceof z.ZodArray) {
      if (isNode(node.items)) node.items = this.walk(schema.element as z.ZodType, node.items)
    } else if (schema instanceof z.ZodTuple) {
      this.tuple(schema, node)
    } else if (schema instanceof z.ZodUnion) {
      this.union(schema, node)
    } else if (schema instanceof z.ZodRecord) {
      if (isNode(node.additionalProperties)) {
        node.additionalProperties = this.walk(schema.def.valueType as z.ZodType, node.additionalProperties)
      }
    } else if (schema instanceof z.ZodIntersection) {
      const [left, right] = nodes(node.allOf)
      if (left) this.walk(schema.def.left as z.ZodType, left)
      if (right) this.walk(schema.def.right as z.ZodType, right)
    }
  }

  /** The generator writes `prefixItems` alone, which admits any further items and fewer; bound it. */
  private tuple(schema: z.ZodTuple, node: JsonNode): void {
    const items = schema.def.items as readonly z.ZodType[]
    const prefix = nodes(node.prefixItems)
    if (prefix.length !== items.length) return
    const members = items.map((item, index) => this.walk(item, prefix[index] as JsonNode))
    node.prefixItems = members
    const required = items.length - [...items].reverse().findIndex((item) => !(item instanceof z.ZodOptional))
    node.minItems = required > items.length ? 0 : required
    if (schema.def.rest) {
      node.items = isNode(node.items) ? this.walk(schema.def.rest as z.ZodType, node.items) : {}
    } else {
      node.maxItems = items.length
      // maxItems already forbids further items, so `items` never applies in 2020-12; validators that predate
      // prefixItems (Prism 5) apply it to every element, so it admits each member rather than nothing.
      node.items = members.length === 1 ? members[0] : { anyOf: members }
    }
  }

  private union(schema: z.ZodUnion, node: JsonNode): void {
    const options = flattenUnion(schema)
    for (const key of ['anyOf', 'oneOf'] as const) {
      const members = nodes(node[key]).filter((member) => !isNullSchema(member))
      if (members.length !== options.length) continue
      const walked = options.map((option, index) => this.walk(option, members[index] as JsonNode))
      const hadNull = nodes(node[key]).some(isNullSchema)
      node[key] = hadNull ? [...walked, NULL_SCHEMA] : walked
    }
  }
}

/** JSON Schema names of zod's string formats where the generator writes one validators do not know. */
const STANDARD_FORMATS: Readonly<Record<string, string>> = { ipv4: 'ipv4', ipv6: 'ipv6' }

/** Formats validators check (`ip` is none), and a URL's allowed schemes, which `format: uri` alone does not say. */
function stringFormat(schema: z.ZodStringFormat, node: JsonNode): void {
  const standard = STANDARD_FORMATS[schema.format ?? '']
  if (standard) node.format = standard
  const protocol = (schema.def as { protocol?: unknown }).protocol
  if (schema.format === 'url' && protocol instanceof RegExp && node.pattern === undefined) {
    node.pattern = `^(?:${protocol.source.replace(/^\^/, '').replace(/\$$/, '')}):`
  }
}

/** The union's options as the generator lists them: nested unions flattened, null variants folded into the union. */
function flattenUnion(schema: z.ZodUnion): z.ZodType[] {
  return (schema.def.options as readonly z.ZodType[]).flatMap((option) => {
    let unwrapped = option
    while (unwrapped instanceof z.ZodNullable) unwrapped = unwrapped.def.innerType as z.ZodType
    return unwrapped instanceof z.ZodUnion ? flattenUnion(unwrapped) : [unwrapped]
  })
}

/** Corrects, in place, what the generator gets wrong in the schema generated from `schema` (see `Repair`). */
export function repairSchema(schema: z.ZodType, node: JsonNode, components: Components): JsonNode {
  return new Repair(components).walk(schema, node)
}

// Finds the request strings of an OpenAPI document that have no upper bound on their length.

export type Schema = { [key: string]: unknown }
export interface Operation {
  operationId?: string
  parameters?: { name: string; in: string; schema?: Schema }[]
  requestBody?: { content?: Record<string, { schema?: Schema }> }
}
export interface Document {
  paths: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, Schema> }
}

// Formats whose values have a fixed or small length, so they bound a string by themselves.
const BOUNDED_FORMATS = new Set(['uuid', 'date', 'date-time', 'time', 'ipv4', 'ipv6'])

/** A pattern bounds its string when it is anchored at both ends and repeats nothing without an upper limit. */
function patternBounds(pattern: unknown): boolean {
  if (typeof pattern !== 'string' || !pattern.startsWith('^') || !pattern.endsWith('$')) return false
  const unescaped = pattern.replace(/\\./g, '')
  return !/[*+]|\{\d+,\}/.test(unescaped)
}

function isBoundedString(schema: Schema): boolean {
  return (
    typeof schema.maxLength === 'number' ||
    Array.isArray(schema.enum) ||
    'const' in schema ||
    (typeof schema.format === 'string' && BOUNDED_FORMATS.has(schema.format)) ||
    patternBounds(schema.pattern)
  )
}

function isString(schema: Schema): boolean {
  const type = schema.type
  return type === 'string' || (Array.isArray(type) && type.includes('string'))
}

/** Every JSON path under `schema` where a string has no upper bound on its length. */
export function unboundedStrings(
  schema: Schema,
  path: string,
  components: Record<string, Schema>,
  seen: Set<string> = new Set(),
): string[] {
  const ref = schema.$ref
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '')
    const target = components[name]
    if (!target || seen.has(name)) return []
    return unboundedStrings(target, `${path}(${name})`, components, new Set([...seen, name]))
  }
  const found = isString(schema) && !isBoundedString(schema) ? [path] : []
  const children: [string, unknown][] = [
    ...Object.entries((schema.properties as Record<string, unknown> | undefined) ?? {}).map(
      ([key, value]): [string, unknown] => [`${path}.${key}`, value],
    ),
    [`${path}[]`, schema.items],
    [`${path}{}`, schema.additionalProperties],
    ...(['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const).flatMap((key) =>
      ((schema[key] as unknown[] | undefined) ?? []).map((value, i): [string, unknown] => [
        `${path}<${key}${i}>`,
        value,
      ]),
    ),
  ]
  for (const [childPath, child] of children) {
    if (child && typeof child === 'object')
      found.push(...unboundedStrings(child as Schema, childPath, components, seen))
  }
  return found
}

/** Every request string of the document (bodies and query parameters) with no upper bound on its length. */
export function unboundedRequestStrings(doc: Document): { unbounded: string[]; operations: number } {
  const components = doc.components?.schemas ?? {}
  const unbounded: string[] = []
  let operations = 0
  for (const [route, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      operations++
      const where = `${method.toUpperCase()} ${route}`
      const body = op.requestBody?.content?.['application/json']?.schema
      if (body) unbounded.push(...unboundedStrings(body, `${where} body`, components))
      // Headers are bounded by the platform and are no procedure's input; query and path parameters are.
      for (const parameter of op.parameters ?? []) {
        if (parameter.schema && parameter.in !== 'header')
          unbounded.push(...unboundedStrings(parameter.schema, `${where} ?${parameter.name}`, components))
      }
    }
  }
  return { unbounded, operations }
}

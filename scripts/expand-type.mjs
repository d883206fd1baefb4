// Prints a checker type as plain TypeScript: objects, arrays, tuples, unions and literals spelled out, with no
// reference to the alias or module it came from (zod's inferred types become the object types they stand for).
import ts from 'typescript'

const F = ts.TypeFlags
const KEYWORDS = [
  [F.Unknown, 'unknown'],
  [F.String, 'string'],
  [F.Number, 'number'],
  [F.Boolean, 'boolean'],
  [F.BigInt, 'bigint'],
  [F.Null, 'null'],
  [F.Undefined, 'undefined'],
  [F.Void, 'void'],
  [F.Never, 'never'],
  [F.NonPrimitive, 'object'],
]

const propertyName = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name))

/** Expands `type` into a type expression; throws on what JSON cannot carry (functions, symbols, any, cycles). */
export function expandType(program, type, where) {
  const checker = program.getTypeChecker()
  const open = new Set()

  // A class or interface of the default library (Date, Uint8Array) keeps its name; aliases such as Record expand.
  const libraryNamed = (t) =>
    (t.symbol?.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) > 0 &&
    t.symbol.declarations.some((d) => program.isSourceFileDefaultLibrary(d.getSourceFile()))

  function expand(t, at, indent) {
    if (t.flags & F.Any) throw new Error(`${at} is any: the registry's type did not resolve`)
    for (const [flag, keyword] of KEYWORDS) if (t.flags & flag) return keyword
    if (t.flags & F.StringLiteral) return JSON.stringify(t.value)
    if (t.flags & (F.NumberLiteral | F.BooleanLiteral | F.TemplateLiteral)) return checker.typeToString(t)
    if (t.isUnion()) return union(t.types, at, indent)
    if (t.flags & F.Object || t.isIntersection()) {
      if (open.has(t)) throw new Error(`${at} is recursive`)
      open.add(t)
      try {
        return object(t, at, indent)
      } finally {
        open.delete(t)
      }
    }
    throw new Error(`${at}: cannot expand ${checker.typeToString(t)}`)
  }

  function union(types, at, indent) {
    const literals = new Set(
      types.filter((t) => t.flags & F.BooleanLiteral).map((t) => checker.typeToString(t)),
    )
    const both = literals.has('true') && literals.has('false')
    const parts = types.filter((t) => !(both && t.flags & F.BooleanLiteral)).map((t) => expand(t, at, indent))
    return [...parts, ...(both ? ['boolean'] : [])].join(' | ')
  }

  function object(t, at, indent) {
    if (checker.isArrayType(t)) {
      const [element] = checker.getTypeArguments(t)
      const name = t.target.symbol.name === 'ReadonlyArray' ? 'ReadonlyArray' : 'Array'
      return `${name}<${expand(element, `${at}[]`, indent)}>`
    }
    if (checker.isTupleType(t)) {
      const flags = t.target.elementFlags
      const elements = checker.getTypeArguments(t).map((element, i) => {
        const text = expand(element, `${at}[${i}]`, indent)
        if (flags[i] & ts.ElementFlags.Optional) return `(${text})?`
        if (flags[i] & ts.ElementFlags.Variadic) return `...Array<${text}>`
        if (flags[i] & ts.ElementFlags.Rest) return `...Array<${text}>`
        return text
      })
      return `${t.target.readonly ? 'readonly ' : ''}[${elements.join(', ')}]`
    }
    if (libraryNamed(t)) return checker.typeToString(t)
    if (checker.getSignaturesOfType(t, ts.SignatureKind.Call).length) throw new Error(`${at} is a function`)
    const inner = `${indent}  `
    const lines = checker.getIndexInfosOfType(t).map((info) => {
      const key = checker.typeToString(info.keyType)
      return `${inner}${info.isReadonly ? 'readonly ' : ''}[key: ${key}]: ${expand(info.type, `${at}[${key}]`, inner)}`
    })
    for (const property of checker.getPropertiesOfType(t)) {
      const name = propertyName(property.name)
      if (property.name.startsWith('__@')) throw new Error(`${at} has a symbol key`)
      const optional = property.flags & ts.SymbolFlags.Optional ? '?' : ''
      const text = expand(checker.getTypeOfSymbol(property), `${at}.${property.name}`, inner)
      lines.push(`${inner}${name}${optional}: ${text}`)
    }
    return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : '{}'
  }

  return expand(type, where, '')
}

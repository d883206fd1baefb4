/** A DNS name without its trailing dot, as the panel stores and shows names; the root stays `.`. */
export function bareName(name: string): string {
  return name.length > 1 && name.endsWith('.') ? name.slice(0, -1) : name
}

/** A DNS name with its trailing dot, as PowerDNS wants names. */
export function absoluteName(name: string): string {
  return name.endsWith('.') ? name : `${name}.`
}

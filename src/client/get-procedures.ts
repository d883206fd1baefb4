/**
 * The procedures served by a GET route alone (no RPC face), by dotted name, with their path. The client imports
 * no server code, so it names them here; a test keeps this map equal to the registry's GET-only procedures.
 */
export const GET_PROCEDURES: ReadonlyMap<string, string> = new Map([
  ['meta.changelog', '/api/v1/meta/changelog'],
  ['meta.version', '/api/v1/meta/version'],
])

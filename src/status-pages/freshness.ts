/**
 * How stale a public answer may be: an edge copy is served for EDGE_SECONDS after it was built, and a browser or
 * proxy may keep it CLIENT_SECONDS more, so no reader sees a state older than their sum (30 seconds).
 */
export const EDGE_SECONDS = 20
export const CLIENT_SECONDS = 10

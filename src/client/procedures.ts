// The client's one seam to the server's sources. `scripts/build-client.mjs` swaps this module for its expansion
// into plain types, so the built declarations need neither the server nor the Workers types.
import type { ErrorCode as ServerErrorCode } from '../rpc/errors'
import type { Router } from '../rpc/registry'
import type { ProceduresOf } from './derive'

/** Every procedure's input, output and own error codes, nested by dotted name. */
export type Procedures = ProceduresOf<Router>

/** Every code of the server's error table. */
export type ErrorCode = ServerErrorCode

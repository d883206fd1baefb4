import type { Procedures } from './procedures.ts'
import { type ClientOptions, rpcClient } from './rpc-client.ts'
import type { ClientOf } from './types.ts'

/** This panel's typed client: one async function per procedure (an async iterator for streams), nested by dotted name. */
export type Client = ClientOf<Procedures>

/** A typed client over the RPC transport: `client.nodes.create({...})` posts to `/api/rpc/nodes.create`. */
export function createClient(options: ClientOptions): Client {
  return rpcClient(options) as Client
}

export {
  type AgentDirection,
  type AgentRequest,
  type AgentVerdict,
  agentSignatureHeaders,
  verifyAgentSignature,
} from '../lib/agent-signature.ts'
export { type SignatureVerdict, verifyServiceSignature } from '../lib/service-signature.ts'
export type { CommonErrorCode } from './common-codes.ts'
export { isPanelError, PanelError, type PanelErrorCode, type ProblemDetails } from './panel-error.ts'
export type { ErrorCode, Procedures } from './procedures.ts'
export type { ClientOptions } from './rpc-client.ts'
export type {
  ClientOf,
  ErrorCodeOf,
  FetchLike,
  FetchResponse,
  Procedure,
  StreamOptions,
  StreamProcedure,
} from './types.ts'

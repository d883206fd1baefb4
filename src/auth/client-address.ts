/**
 * The caller's address, for sign-in budgets. Cloudflare's edge sets `cf-connecting-ip` and the `cf` object on
 * every request it forwards; without that object (workerd, another proxy, a direct call) the header is whatever
 * the client sent, so it is not trusted and the caller is unknown (null): every such caller shares one budget.
 */
export function clientAddress(request: Request): string | null {
  if (request.cf === undefined || request.cf === null) return null
  return request.headers.get('cf-connecting-ip')
}

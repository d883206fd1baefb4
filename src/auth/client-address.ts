/**
 * The caller's address, for sign-in budgets. Cloudflare's edge sets `cf-connecting-ip` and the `cf` object on
 * every request it forwards; without that object (workerd, another proxy, a direct call) the header is whatever
 * the client sent, so it is not trusted and the caller is unknown (null): every such caller shares one budget.
 * Neither is `wrangler dev` (ENVIRONMENT "development") trusted: it makes up a `cf` object and keeps a client's own
 * header.
 */
export function clientAddress(request: Request, environment: string | undefined): string | null {
  if (request.cf === undefined || request.cf === null || environment === 'development') return null
  return request.headers.get('cf-connecting-ip')
}

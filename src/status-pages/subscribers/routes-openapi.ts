import { createRoute, z } from '@hono/zod-openapi'
import { problemResponses } from '../../rpc/routes'
import { MAILS_PER_ADDRESS_PER_DAY, SUBSCRIBE_PER_CLIENT_PER_HOUR } from './email-subscriptions'

const SlugParam = z
  .string()
  .max(64)
  .openapi({ param: { name: 'slug', in: 'path' }, example: 'acme' })
const TokenQuery = z
  .string()
  .max(128)
  .optional()
  .openapi({ param: { name: 'token', in: 'query' }, description: 'The token the mailed link carries' })

const requestId = z.object({
  'x-request-id': z.string().openapi({ description: 'The panel\u2019s own id for this request' }),
})
const html = (description: string) => ({
  description,
  headers: requestId,
  content: { 'text/html': { schema: z.string() } },
})
const NOT_FOUND_PAGE = html('No such public page: the HTML "Not found" page')

const subscribeRoute = createRoute({
  method: 'post',
  path: '/api/v1/status/{slug}/subscribe',
  operationId: 'statusPages.subscribe',
  tags: ['statusPages'],
  summary: 'Ask for mail about a public page\u2019s incidents; a confirmation link is mailed first',
  description:
    'No authentication. Answers 202 for every well-formed address, whether it is new, waiting for confirmation or ' +
    'already subscribed, with the same work behind each, so the answer tells nobody who subscribes. A new or ' +
    'pending address is mailed a confirmation link (valid 48 hours); a confirmed one a note that nothing changed. ' +
    `Each client may ask ${SUBSCRIBE_PER_CLIENT_PER_HOUR} times an hour (then 429); each address is mailed at most ` +
    `${MAILS_PER_ADDRESS_PER_DAY} times a day over all pages (further requests are answered 202 and send nothing).`,
  security: [],
  request: {
    params: z.object({ slug: SlugParam }),
    body: {
      content: { 'application/json': { schema: z.object({ email: z.string().max(254) }) } },
      required: true,
    },
  },
  responses: {
    202: {
      description: 'Taken: if the address can receive mail, a message is on its way',
      content: { 'application/json': { schema: z.object({ accepted: z.literal(true) }) } },
    },
    ...problemResponses([
      'validation_failed',
      'invalid_json',
      'payload_too_large',
      'unsupported_media_type',
      'not_found',
      'rate_limited',
      'internal',
    ]),
  },
})

function linkRoute(method: 'get' | 'post', action: 'confirm' | 'unsubscribe') {
  const get = method === 'get'
  const summaries = {
    confirm: get
      ? 'The page a confirmation link opens: a Confirm button (a GET confirms nothing, so link scanners cannot)'
      : 'Confirm a subscription (the Confirm button)',
    unsubscribe: get
      ? 'The page an unsubscribe link opens: an Unsubscribe button'
      : 'Unsubscribe (the button, or a mail program\u2019s RFC 8058 one-click POST to the List-Unsubscribe URL)',
  }
  const done = {
    confirm: get ? 'The Confirm button' : 'Subscribed',
    unsubscribe: get
      ? 'The Unsubscribe button, or "Unsubscribed" when the token names no subscription'
      : 'Unsubscribed (also for a token that names none: the answer tells nothing)',
  }
  return createRoute({
    method,
    path: `/status/{slug}/${action}`,
    operationId: `statusPages.${action}${get ? 'Page' : ''}`,
    tags: ['statusPages'],
    summary: summaries[action],
    description:
      'No authentication: the token the mailed link carries is the credential. A GET changes nothing; the POST acts. The pages send no Referer onwards and are never cached.',
    security: [],
    request: { params: z.object({ slug: SlugParam }), query: z.object({ token: TokenQuery }) },
    responses: {
      200: html(done[action]),
      404:
        action === 'confirm'
          ? html('No such public page, or the link was used, has expired or was cut short')
          : NOT_FOUND_PAGE,
      ...problemResponses(['internal']),
    },
  })
}

/** The OpenAPI description of a page's public subscription surface. */
export const subscriberRoutes = [
  subscribeRoute,
  linkRoute('get', 'confirm'),
  linkRoute('post', 'confirm'),
  linkRoute('get', 'unsubscribe'),
  linkRoute('post', 'unsubscribe'),
]

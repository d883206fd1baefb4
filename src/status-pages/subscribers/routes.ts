import { type OpenAPIHono, z } from '@hono/zod-openapi'
import { and, eq } from 'drizzle-orm'
import type { Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { clientAddress } from '../../auth/client-address'
import { db } from '../../db/client'
import { statusPages } from '../../db/schema/status-pages'
import type { AppEnv } from '../../env'
import { AppError, validationFailed } from '../../rpc/errors'
import { renderNotFoundHtml } from '../render-html'
import { SlugSchema } from '../schemas'
import {
  confirmSubscription,
  pendingByToken,
  subscribe,
  subscriptionByUnsubscribeToken,
  unsubscribe,
} from './email-subscriptions'
import { actionPage, messagePage } from './pages'
import { subscriberRoutes } from './routes-openapi'

export const SubscribeInputSchema = z
  .strictObject({ email: z.email('must be an email address').max(254) })
  .openapi('StatusPageSubscribeInput')

const MAX_SUBSCRIBE_BODY_BYTES = 4096
const JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i

/** The public page the path names, spelled exactly as stored (as its other faces require); null otherwise. */
async function publicPage(c: Context<AppEnv>, path: (slug: string) => string) {
  const slug = c.req.param('slug') ?? ''
  if (new URL(c.req.url).pathname !== path(slug) || !SlugSchema.safeParse(slug).success) return null
  const [page] = await db(c.env.DB)
    .select({ id: statusPages.id, slug: statusPages.slug, title: statusPages.title })
    .from(statusPages)
    .where(and(eq(statusPages.slug, slug), eq(statusPages.public, true)))
    .limit(1)
  return page ?? null
}

const panelOrigin = (c: Context<AppEnv>) => c.env.PANEL_ORIGIN ?? new URL(c.req.url).origin

async function readSubscribeInput(c: Context<AppEnv>): Promise<z.infer<typeof SubscribeInputSchema>> {
  const type = c.req.header('content-type')
  if (type === undefined || !JSON_CONTENT_TYPE.test(type))
    throw new AppError('unsupported_media_type', 'send the body as application/json (UTF-8)')
  let body: unknown
  try {
    body = JSON.parse(await c.req.text())
  } catch {
    throw new AppError('invalid_json', 'the request body is not valid JSON')
  }
  const input = SubscribeInputSchema.safeParse(body)
  if (!input.success) throw validationFailed(input.error)
  return input.data
}

const subscribePath = (slug: string) => `/api/v1/status/${slug}/subscribe`
const confirmPath = (slug: string) => `/status/${slug}/confirm`
const unsubscribePath = (slug: string) => `/status/${slug}/unsubscribe`

/** The mailed links carry a token: the pages they open send no Referer onwards, and are never cached. */
const LINK_PAGE_HEADERS = { 'referrer-policy': 'no-referrer' }

type LinkPage = NonNullable<Awaited<ReturnType<typeof publicPage>>>

/** A mailed link's page: HTML Not found for a missing or private page, else what `answer` makes of the token. */
function linkRoute(
  path: (slug: string) => string,
  answer: (c: Context<AppEnv>, page: LinkPage, token: string) => Promise<Response>,
) {
  return async (c: Context<AppEnv>) => {
    const page = await publicPage(c, path)
    if (!page) return c.html(renderNotFoundHtml(), 404, LINK_PAGE_HEADERS)
    return answer(c, page, c.req.query('token') ?? '')
  }
}

const pageUrlOf = (c: Context<AppEnv>, page: LinkPage) => `${panelOrigin(c)}/status/${page.slug}`
const actionOf = (path: string, token: string) => `${path}?token=${encodeURIComponent(token)}`

/**
 * Mounts the public subscription surface of a status page: the subscribe call, and the pages the mailed
 * confirmation and unsubscribe links open. Confirming and unsubscribing take a POST (a button on the page the
 * link opens, or a mail program's RFC 8058 one-click POST to the unsubscribe URL); a GET changes nothing.
 */
export function mountStatusPageSubscriptions(app: OpenAPIHono<AppEnv>): void {
  app.post(
    '/api/v1/status/:slug/subscribe',
    bodyLimit({
      maxSize: MAX_SUBSCRIBE_BODY_BYTES,
      onError: () => {
        throw new AppError('payload_too_large', `the request body exceeds ${MAX_SUBSCRIBE_BODY_BYTES} bytes`)
      },
    }),
    async (c) => {
      const page = await publicPage(c, subscribePath)
      if (!page) throw new AppError('not_found', 'there is no public status page at this address')
      const { email } = await readSubscribeInput(c)
      await subscribe(c.env, db(c.env.DB), page, email, clientAddress(c.req.raw, c.env), panelOrigin(c))
      return c.json({ accepted: true as const }, 202)
    },
  )

  app.get(
    '/status/:slug/confirm',
    linkRoute(confirmPath, async (c, page, token) => {
      const pending = token ? await pendingByToken(db(c.env.DB), page.id, token, new Date()) : undefined
      if (!pending)
        return c.html(
          messagePage(
            page.title,
            'This link does not work',
            'It was used already, has expired, or was cut short. Subscribe again on the status page for a new one.',
            pageUrlOf(c, page),
          ),
          404,
          LINK_PAGE_HEADERS,
        )
      const question = `Send mail about incidents on ${page.title} to this address?`
      const action = actionOf(confirmPath(page.slug), token)
      return c.html(actionPage(page.title, question, 'Confirm', action), 200, LINK_PAGE_HEADERS)
    }),
  )
  app.post(
    '/status/:slug/confirm',
    linkRoute(confirmPath, async (c, page, token) => {
      const confirmed = token ? await confirmSubscription(db(c.env.DB), page.id, token, new Date()) : false
      return confirmed
        ? c.html(
            messagePage(
              page.title,
              'Subscribed',
              `This address now gets mail about incidents on ${page.title}. Every mail has a link to stop it.`,
              pageUrlOf(c, page),
            ),
            200,
            LINK_PAGE_HEADERS,
          )
        : c.html(
            messagePage(
              page.title,
              'This link does not work',
              'It was used already, has expired, or was cut short. Subscribe again on the status page for a new one.',
              pageUrlOf(c, page),
            ),
            404,
            LINK_PAGE_HEADERS,
          )
    }),
  )

  app.get(
    '/status/:slug/unsubscribe',
    linkRoute(unsubscribePath, async (c, page, token) => {
      const known = token ? await subscriptionByUnsubscribeToken(db(c.env.DB), page.id, token) : undefined
      if (!known) return c.html(unsubscribedPage(c, page), 200, LINK_PAGE_HEADERS)
      const question = `Stop mail about incidents on ${page.title} to this address?`
      const action = actionOf(unsubscribePath(page.slug), token)
      return c.html(actionPage(page.title, question, 'Unsubscribe', action), 200, LINK_PAGE_HEADERS)
    }),
  )
  // The button's POST and a mail program's one-click POST (body `List-Unsubscribe=One-Click`, RFC 8058) alike:
  // the token in the URL is all it takes, and a second POST answers the same.
  app.post(
    '/status/:slug/unsubscribe',
    linkRoute(unsubscribePath, async (c, page, token) => {
      if (token) await unsubscribe(db(c.env.DB), page.id, token)
      return c.html(unsubscribedPage(c, page), 200, LINK_PAGE_HEADERS)
    }),
  )
  for (const route of subscriberRoutes) app.openAPIRegistry.registerPath(route)
}

/** The same whether the link named a subscription or not: it tells nobody which addresses subscribe. */
const unsubscribedPage = (c: Context<AppEnv>, page: LinkPage) =>
  messagePage(
    page.title,
    'Unsubscribed',
    `This address gets no mail about ${page.title}.`,
    pageUrlOf(c, page),
  )

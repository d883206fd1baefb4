import { z } from '@hono/zod-openapi'
import { and, eq, sql } from 'drizzle-orm'
import { commitGuarded, failUnless } from '../db/batch-guard'
import { accountDefaults, accounts, accountZones } from '../db/schema/accounts'
import { assertOutboundUrl } from '../lib/outbound-url'
import {
  afterCursor,
  type ListOrder,
  newestFirst,
  orderTerms,
  pageInput,
  pageOf,
  rowsOfPage,
  rowsOfPageAndOne,
} from '../lib/paging'
import { IdInputSchema, RemovedSchema } from '../lib/schemas'
import { openSecret, sealSecret } from '../lib/secrets'
import { procedure } from '../rpc/define'
import { conflict, invalid } from '../rpc/errors'
import { nextUpdatedAt } from './as-read'
import { assertScopeExists, resolveAccount } from './cascade'
import { checkAccount } from './check'
import { retestAccount } from './retest'
import { type AccountRecord, getAccount, toAccountRow } from './rows'
import { assertNameFree, assertProviderFits, assertTokenFollowsApiRoot } from './rules'
import {
  AccountDefaultSchema,
  AccountKindSchema,
  AccountRowSchema,
  AccountTestResultSchema,
  AccountZonesSchema,
  CreateAccountInputSchema,
  ResolvedAccountSchema,
  ResolveInputSchema,
  SetDefaultInputSchema,
  UpdateAccountInputSchema,
} from './schemas'
import { accountUsages, unused } from './usage'
import { checkedFields, zoneCacheWrites } from './zone-cache'

const byZoneName: ListOrder = { keys: [sql`${accountZones.zoneName}`], direction: 'asc' }

export const accountsProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary:
      'List provider accounts (dns, git, ssl-issuer), newest first; the token is never returned. Page with limit and cursor (the id of the last account you hold)',
    input: z.strictObject({ kind: AccountKindSchema.optional(), ...pageInput }),
    output: z.array(AccountRowSchema),
    async handler(input, ctx) {
      const scope = input.kind ? eq(accounts.kind, input.kind) : undefined
      const list = {
        table: accounts,
        id: accounts.id,
        order: newestFirst(accounts, accounts.createdAt),
        scope,
      }
      const rows = await ctx.db
        .select()
        .from(accounts)
        .where(and(scope, await afterCursor(ctx.db, list, input.cursor)))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPage(input.limit))
      return rows.map(toAccountRow)
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary: 'Get a provider account',
    input: IdInputSchema,
    output: AccountRowSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      return toAccountRow(await getAccount(ctx.db, input.id))
    },
  }),
  create: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'account.create',
    summary:
      'Save a provider account; the token is sealed and never returned. It is tested at once and stored even ' +
      'when the test fails, with the outcome in lastTestState',
    input: CreateAccountInputSchema,
    output: AccountRowSchema,
    errors: ['conflict'],
    async handler(input, ctx) {
      const target = {
        provider: input.provider,
        zoneId: input.zoneId ?? null,
        apiBaseUrl: input.apiBaseUrl ?? null,
      }
      assertProviderFits(input.kind, input.provider, target.zoneId)
      if (target.apiBaseUrl !== null) assertOutboundUrl(ctx.env, 'apiBaseUrl', target.apiBaseUrl)
      await assertNameFree(ctx.db, input.kind, input.name)
      const now = new Date()
      const check = await checkAccount(target, input.token, now)
      const account: AccountRecord = {
        id: crypto.randomUUID(),
        kind: input.kind,
        name: input.name,
        ...target,
        tokenSealed: await sealSecret(ctx.env, input.token),
        zonesRefreshedAt: null,
        ...checkedFields(check, now),
        createdAt: now,
        updatedAt: now,
      }
      await ctx.commit(
        [ctx.db.insert(accounts).values(account), ...zoneCacheWrites(ctx.db, account.id, check)],
        {
          targetId: account.id,
          detail: { kind: account.kind, provider: account.provider, testOk: check.state.ok },
        },
      )
      return toAccountRow(account)
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'account.update',
    summary:
      'Change an account and test it again; a new token replaces the stored one, null clears zoneId or ' +
      'apiBaseUrl, and a changed apiBaseUrl needs the token again in the same call',
    input: UpdateAccountInputSchema,
    output: AccountRowSchema,
    errors: ['not_found', 'conflict'],
    async handler({ id, token, ...fields }, ctx) {
      const account = await getAccount(ctx.db, id)
      assertTokenFollowsApiRoot(account.apiBaseUrl, fields.apiBaseUrl, token)
      const target = {
        provider: account.provider,
        zoneId: fields.zoneId === undefined ? account.zoneId : fields.zoneId,
        apiBaseUrl: fields.apiBaseUrl === undefined ? account.apiBaseUrl : fields.apiBaseUrl,
      }
      assertProviderFits(account.kind, account.provider, target.zoneId)
      if (target.apiBaseUrl !== null) assertOutboundUrl(ctx.env, 'apiBaseUrl', target.apiBaseUrl)
      if (fields.name !== undefined) await assertNameFree(ctx.db, account.kind, fields.name, id)
      const now = new Date()
      const check = await checkAccount(target, token ?? (await openSecret(ctx.env, account.tokenSealed)), now)
      const updated: AccountRecord = {
        ...account,
        ...target,
        name: fields.name ?? account.name,
        tokenSealed: token === undefined ? account.tokenSealed : await sealSecret(ctx.env, token),
        ...checkedFields(check, now),
        updatedAt: nextUpdatedAt(account, now),
      }
      await ctx.commit(
        [
          ctx.db.update(accounts).set(updated).where(eq(accounts.id, id)),
          ...zoneCacheWrites(ctx.db, id, check),
        ],
        {
          targetId: id,
          detail: { fields: Object.keys(fields), tokenChanged: token !== undefined, testOk: check.state.ok },
        },
      )
      return toAccountRow(updated)
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'account.remove',
    summary: 'Remove an account that no default, domain or custom hostname uses (409 names what does)',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const account = await getAccount(ctx.db, input.id)
      const usages = await accountUsages(ctx.db, account.id)
      if (usages.length > 0) throw conflict(`account ${account.name} is still in use: ${usages.join('; ')}`)
      await commitGuarded(
        ctx.commit(
          [
            failUnless(ctx.db, unused(account.id)),
            ctx.db.delete(accountZones).where(eq(accountZones.accountId, account.id)),
            ctx.db.delete(accounts).where(eq(accounts.id, account.id)),
          ],
          { targetId: account.id, detail: { kind: account.kind, name: account.name } },
        ),
        async () =>
          conflict(
            `account ${account.name} is still in use: ${(await accountUsages(ctx.db, account.id)).join('; ')}`,
          ),
      )
      return { removed: true as const }
    },
  }),
  test: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'account.test',
    summary:
      'Test the stored token against the provider (git and ssl-issuer: its format only), record lastTestState ' +
      'and refresh the cached zones. While the provider has asked to wait (Retry-After), it is not called: ' +
      'the stored outcome is answered with the time it may be tried again',
    input: IdInputSchema,
    output: AccountTestResultSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const account = await getAccount(ctx.db, input.id)
      const retest = await retestAccount(ctx.db, ctx.env, account, new Date())
      const { ok, detail } = retest.state
      await ctx.commit(retest.writes, { targetId: account.id, detail: { ok, tested: retest.tested } })
      return { ok, detail }
    },
  }),
  zones: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary:
      'The zones a dns account held at its last refresh (create, update, test or the hourly cron), by name; pass nextCursor (the last zone name) back as cursor for the next page',
    input: IdInputSchema.extend(pageInput),
    output: AccountZonesSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const account = await getAccount(ctx.db, input.id)
      if (account.kind !== 'dns') throw invalid('id', `a ${account.kind} account holds no zones`)
      const scope = eq(accountZones.accountId, account.id)
      const list = { table: accountZones, id: accountZones.zoneName, order: byZoneName, scope }
      const rows = await ctx.db
        .select()
        .from(accountZones)
        .where(and(scope, await afterCursor(ctx.db, list, input.cursor)))
        .orderBy(...orderTerms(byZoneName))
        .limit(rowsOfPageAndOne(input.limit))
      const page = pageOf(rows, input.limit, (row) => row.zoneName)
      return {
        zones: page.items.map((row) => ({ id: row.zoneId, name: row.zoneName })),
        nextCursor: page.nextCursor,
        refreshedAt: account.zonesRefreshedAt?.toISOString() ?? null,
      }
    },
  }),
  setDefault: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'account.set-default',
    summary:
      'Set (or, with accountId null, clear) the default account of a kind for a node, instance or domain',
    input: SetDefaultInputSchema,
    output: AccountDefaultSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const where = and(
        eq(accountDefaults.scope, input.scope),
        eq(accountDefaults.scopeId, input.scopeId),
        eq(accountDefaults.kind, input.kind),
      )
      const audit = { targetId: input.scopeId, detail: { ...input } }
      // Clearing skips the existence check so a default left on a removed node can still be cleared.
      if (input.accountId === null) {
        await ctx.commit([ctx.db.delete(accountDefaults).where(where)], audit)
        return input
      }
      await assertScopeExists(ctx.db, input)
      const account = await getAccount(ctx.db, input.accountId)
      if (account.kind !== input.kind) {
        throw invalid('accountId', `account ${account.name} is a ${account.kind} account, not ${input.kind}`)
      }
      const row = { ...input, accountId: account.id, updatedAt: new Date() }
      await ctx.commit(
        [
          ctx.db
            .insert(accountDefaults)
            .values(row)
            .onConflictDoUpdate({
              target: [accountDefaults.scope, accountDefaults.scopeId, accountDefaults.kind],
              set: { accountId: row.accountId, updatedAt: row.updatedAt },
            }),
        ],
        audit,
      )
      return input
    },
  }),
  resolve: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary:
      'The account of a kind that applies to a node, instance or domain: the most specific default wins ' +
      '(domain, then instance, then node); source names the level that answered',
    input: ResolveInputSchema,
    output: ResolvedAccountSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const { account, source } = await resolveAccount(ctx.db, input.kind, input.target)
      return { account: account ? toAccountRow(account) : null, source }
    },
  }),
}

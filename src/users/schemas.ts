import { z } from '@hono/zod-openapi'

export const RoleSchema = z.enum(['admin', 'operator']).openapi('Role')
// The local part takes the characters of RFC 5322's dot-atom (what browsers' type=email takes): no markup,
// quotes, spaces, controls or invisible characters. The domain may be a single label: local installs sign in as
// admin@localhost. No regex flags: the pattern is published as a JSON Schema pattern, where flags do not exist,
// so it spells out both cases and the value is lowercased after it matched.
export const EmailSchema = z
  .string()
  .trim()
  .max(254)
  .regex(
    /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/,
    'must be an email address',
  )
  .toLowerCase()
export const PasswordSchema = z.string().min(12, 'must be at least 12 characters').max(1024)

export const UserRowSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: RoleSchema,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('UserRow')
export type UserRow = z.infer<typeof UserRowSchema>

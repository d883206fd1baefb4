import { z } from '@hono/zod-openapi'

export const RoleSchema = z.enum(['admin', 'operator']).openapi('Role')
// Deliberately loose: local installs sign in as admin@localhost, which stricter validators refuse.
export const EmailSchema = z
  .string()
  .trim()
  .max(254)
  .regex(/^[^\s@]+@[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/i, 'must be an email address')
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

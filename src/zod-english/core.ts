// `z.core` as zod exports it, with `locales` holding English only (see ./index.ts).
export * from 'zod/v4/core'
export * as locales from './locales'

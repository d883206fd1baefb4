// The `zod` the Worker is bundled with: wrangler.toml's [alias] (and vitest.config.ts for the tests) point every
// `import … from 'zod'`, @hono/zod-openapi's included, at this module. It is zod's own namespace with one change:
// `locales` (here and in `core`) holds English only. @hono/zod-openapi passes the `z` namespace to
// extendZodWithOpenApi as a value, so the bundler has to keep everything the namespace exports, and zod's
// `z.locales` is every language's error messages, about 260 KiB of the minified Worker. Error messages are not
// affected: zod registers English on its first schema either way.
import * as z from './index'

export * from 'zod/v4'
export * as core from './core'
export * as locales from './locales'
export { z, z as default }

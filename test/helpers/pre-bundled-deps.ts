// The packages the Worker imports, pre-bundled by vitest's SSR deps optimizer for the workerd project
// (vitest.config.ts). Every test file's runtime imports the Worker anew, module by module over the pool's socket;
// these ~270 package files as a few bundles cost about 14% less CPU a file (docs/testing.md). A package missing
// here still works, file by file. `zod` itself is not listed: the project aliases it to src/zod-english, which
// imports zod/v4, so the Worker and @hono/zod-openapi share one pre-bundled zod (a config without that alias, like
// test/peers', would load a second zod beside the bundles and lose @hono/zod-openapi's .openapi()).
export const preBundledDeps = {
  optimizer: {
    ssr: {
      enabled: true,
      include: [
        '@cfworker/json-schema',
        '@dnsquery/dns-packet',
        '@dnsquery/dns-packet/rcodes.js',
        '@hono/zod-openapi',
        'croner',
        'drizzle-orm',
        'drizzle-orm/batch',
        'drizzle-orm/d1',
        'drizzle-orm/sqlite-core',
        'hono',
        'hono/body-limit',
        'hono/http-exception',
        'hono/request-id',
        'tldts',
        'zod/v4',
        'zod/v4/core',
        'zod/v4/locales/en.js',
      ],
    },
  },
}

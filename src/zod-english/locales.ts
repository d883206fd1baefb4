// The only locale the Worker speaks: zod's default, English.
export { default as en } from 'zod/v4/locales/en.js'

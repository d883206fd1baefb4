/** A schedule's check: is it due in the minute that starts at `date`? Throws on a schedule it cannot read. */
export function parseCron(expression: string): (date: Date) => boolean
/** The `crons = [...]` list under [triggers] in wrangler.toml's text. */
export function readCrons(wranglerToml: string): string[]

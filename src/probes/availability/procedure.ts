import { procedure } from '../../rpc/define'
import { AvailabilityInputSchema, AvailabilitySchema } from './schemas'
import { readWindow, windowFigures } from './window'

export const availability = procedure({
  kind: 'query',
  permission: 'probes:view',
  summary:
    'A probe’s availability over a window within the last 2160 hours: uptime in basis points, downtime, incidents and the longest, maintenance and checks (maintenance excluded from downtime; time after now not counted). The same figures per UTC day: GET /api/v1/probes/{id}/availability.csv',
  input: AvailabilityInputSchema,
  output: AvailabilitySchema,
  errors: ['not_found', 'out_of_range'],
  async handler(input, ctx) {
    const window = { from: Date.parse(input.from), to: Date.parse(input.to) }
    return windowFigures(await readWindow(ctx.d1, input.id, window, Date.now()))
  },
})

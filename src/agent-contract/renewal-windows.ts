import { z } from 'zod'

// Contract v2, renewal windows (agent 0.5.1): the window in which the CA suggests renewing a certificate a node
// serves, from the CA's ACME Renewal Information (ARI, RFC 9773), where the CA publishes one. A callback of its
// own rather than a field of the certificate report: that report's schema is strict, so a panel before this
// field would refuse the whole report (and with it the observations), and a window changes on the CA's schedule
// (Retry-After), not with the serial. A panel before this callback answers 404 and the agent keeps the windows
// for its next scan; an agent before 0.5.1 never calls it.

/** `POST <panel>/api/agent/v2/renewal-windows`, signed like every callback, plus `x-node-id`. */
export const RENEWAL_WINDOWS_CALLBACK = '/api/agent/v2/renewal-windows'

/** The CA's suggested window for the certificate `serial` that the node serves for `hostname`. */
export const RenewalWindowSchema = z
  .strictObject({
    hostname: z.string().min(1).max(253),
    /** The certificate's serial, as in its observation: the window belongs to that certificate only. */
    serial: z.string().min(1).max(128),
    start: z.iso.datetime({ offset: true }),
    end: z.iso.datetime({ offset: true }),
    /** The CA's page on why the window is what it is (RFC 9773 `explanationURL`), when it gave one. */
    explanationUrl: z
      .url({ protocol: /^https?$/ })
      .max(1000)
      .optional(),
  })
  .refine((window) => Date.parse(window.end) > Date.parse(window.start), {
    path: ['end'],
    message: 'end must be after start',
  })
export type RenewalWindow = z.infer<typeof RenewalWindowSchema>

export const MAX_WINDOWS_PER_REPORT = 500
/** The agent keeps a report's body under this many bytes: the panel reads a callback's body up to 64 KiB. */
export const MAX_WINDOWS_REPORT_BYTES = 60_000

export const RenewalWindowReportSchema = z.strictObject({
  windows: z.array(RenewalWindowSchema).min(1).max(MAX_WINDOWS_PER_REPORT),
})
export type RenewalWindowReport = z.infer<typeof RenewalWindowReportSchema>

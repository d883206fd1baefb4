import { availability } from './availability/procedure'
import { manageProbesProcedures } from './manage-procedures'
import { readProbesProcedures } from './read-procedures'
import { watch } from './watch/procedure'

/** Every probes.* procedure; each helper file adds its own. */
export const probesProcedures = { ...readProbesProcedures, ...manageProbesProcedures, watch, availability }

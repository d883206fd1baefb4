/** Every message the JOBS queue carries; each area adds its own `{ type, ... }` variants. */
export type JobMessage = never

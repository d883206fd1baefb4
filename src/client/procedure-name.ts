/** The key under which a client procedure answers its dotted name; `isPanelError` reads it. */
export const PROCEDURE_NAME = Symbol('hosting-panel-api procedure name')

/** Whether a D1 error is SQLite refusing a write on a UNIQUE (or primary key) or FOREIGN KEY constraint. */
export function isConstraintError(error: unknown, kind: 'UNIQUE' | 'FOREIGN KEY'): boolean {
  return (
    error instanceof Error &&
    `${error.message} ${String(error.cause ?? '')}`.includes(`${kind} constraint failed`)
  )
}

/** A moment as the panel writes it in text meant for people (step details, remedies): `2027-02-24 07:42 UTC`. */
export function displayTime(moment: Date | string): string {
  const date = typeof moment === 'string' ? new Date(moment) : moment
  if (Number.isNaN(date.getTime())) return String(moment)
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

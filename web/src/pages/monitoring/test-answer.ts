/** What `notifications.channels.test` answers, as far as the pages rely on it. */
export interface TestResult {
  delivered: boolean
  status: number | null
}

/**
 * A channel test's answer in one line: delivered or not, the status the service answered, and every other text the
 * answer carries (its words or their classification), whatever the fields are called.
 */
export function testAnswerText(result: TestResult): string {
  const words = Object.entries(result)
    .filter(([key, value]) => key !== 'delivered' && key !== 'status' && typeof value === 'string' && value)
    .map(([, value]) => String(value))
  const status = result.status === null ? [] : [`status ${result.status}`]
  return [result.delivered ? 'Delivered' : 'Not delivered', ...status, ...words].join(' · ')
}

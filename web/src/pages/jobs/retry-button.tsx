import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api'
import type { Job } from './types'

/** What the panel answered to a retry: the job as it now stands, or the refusal. */
export type RetryAnswer = { job: Job; sent: Job } | { job: Job; error: unknown }

/** Sends a dead job again; the answer goes to the page, which keeps it while the list changes under it. */
export function RetryButton({ job, onAnswer }: { job: Job; onAnswer: (answer: RetryAnswer) => void }) {
  const queryClient = useQueryClient()
  const retry = useMutation({
    mutationFn: () => api.jobs.retry({ id: job.id }),
    onSuccess: (sent) => onAnswer({ job, sent }),
    onError: (error) => onAnswer({ job, error }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['jobs.list'] }),
  })
  return (
    <button
      type="button"
      disabled={retry.isPending}
      aria-label={`Retry ${job.kind} for ${job.target}`}
      onClick={() => retry.mutate()}
    >
      {retry.isPending ? 'Sending…' : 'Retry'}
    </button>
  )
}

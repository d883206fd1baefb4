import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api'
import { FormProblem } from '../../components/form-problem'
import type { Job } from './types'

/** Sends a dead job again and shows the panel's answer: the job sent again, or why it was refused. */
export function RetryButton({ job }: { job: Job }) {
  const queryClient = useQueryClient()
  const retry = useMutation({
    mutationFn: () => api.jobs.retry({ id: job.id }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['jobs.list'] }),
  })
  return (
    <div className="retry">
      <button
        type="button"
        disabled={retry.isPending || job.state !== 'dead'}
        aria-label={`Retry ${job.kind} for ${job.target}`}
        onClick={() => retry.mutate()}
      >
        {retry.isPending ? 'Sending…' : 'Retry'}
      </button>
      {retry.isSuccess && (
        <p role="status" className="note">
          Sent again; it shows as {retry.data.state === 'retried' ? 'sent again' : retry.data.state} until it
          finishes.
        </p>
      )}
      <FormProblem error={retry.error} />
    </div>
  )
}

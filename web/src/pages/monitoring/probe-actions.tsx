import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { FormProblem } from '../../components/form-problem'
import { HeartbeatUrl } from './heartbeat-url'
import type { Probe } from './probe-types'

/** Pause or resume, rotate a heartbeat's token (its new URL shown once), archive for good. */
export function ProbeActions({ probe }: { probe: Probe }) {
  const queryClient = useQueryClient()
  const [confirmArchive, setConfirmArchive] = useState(false)
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['probes.get', probe.id] })
  const setEnabled = useMutation({
    mutationFn: (enabled: boolean) => api.probes.setEnabled({ id: probe.id, enabled }),
    onSuccess: refresh,
  })
  const archive = useMutation({ mutationFn: () => api.probes.archive({ id: probe.id }), onSuccess: refresh })
  const rotate = useMutation({ mutationFn: () => api.probes.rotateToken({ id: probe.id }) })
  const error = setEnabled.error ?? archive.error ?? rotate.error
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      <div className="actions">
        <button
          type="button"
          disabled={setEnabled.isPending}
          onClick={() => setEnabled.mutate(!probe.enabled)}
        >
          {probe.enabled ? 'Pause probe' : 'Resume probe'}
        </button>
        {probe.type === 'heartbeat' && (
          <button
            type="button"
            className="secondary"
            disabled={rotate.isPending}
            onClick={() => rotate.mutate()}
          >
            Rotate heartbeat token
          </button>
        )}
        {confirmArchive ? (
          <>
            <button
              type="button"
              className="danger"
              disabled={archive.isPending}
              onClick={() => archive.mutate()}
            >
              Archive for good
            </button>
            <button type="button" className="secondary" onClick={() => setConfirmArchive(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" className="danger" onClick={() => setConfirmArchive(true)}>
            Archive probe…
          </button>
        )}
      </div>
      {confirmArchive && (
        <p className="note">
          Archiving stops the probe for good: no checks, its heartbeat URL answers 404; history and events are
          kept.
        </p>
      )}
      {rotate.data && <HeartbeatUrl url={rotate.data.heartbeatUrl} />}
      <FormProblem error={error} />
    </section>
  )
}

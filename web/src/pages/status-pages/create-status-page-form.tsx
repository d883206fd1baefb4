import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { StatusPageForm, type StatusPageValues } from './status-page-form'

export const LIST_KEY = ['statusPages.list']

const EMPTY: StatusPageValues = {
  slug: '',
  title: '',
  description: '',
  public: true,
  autoIncidents: false,
  groups: [],
}

/** A new status page: its address, title, groups of the probes ticked (each under a display name), public or not. */
export function CreateStatusPageForm() {
  // A new key after each page added empties the form.
  const [round, setRound] = useState(0)
  const queryClient = useQueryClient()
  const create = useMutation({
    mutationFn: ({ description, ...values }: StatusPageValues) =>
      api.statusPages.create({ ...values, ...(description ? { description } : {}) }),
    onSuccess: async () => {
      setRound((n) => n + 1)
      await queryClient.invalidateQueries({ queryKey: LIST_KEY })
    },
  })
  return (
    <StatusPageForm
      key={round}
      heading="Add a status page"
      initial={EMPTY}
      submitText="Add status page"
      pending={create.isPending}
      error={create.error}
      onSubmit={(values) => create.mutate(values)}
    />
  )
}

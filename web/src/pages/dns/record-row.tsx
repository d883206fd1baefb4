import { useMutation } from '@tanstack/react-query'
import { api, errorText } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { useSession } from '../../session'
import { EDITABLE_TYPES, type RecordDraft, type RecordType, type RecordWrite } from './record-editor'

interface RecordSet {
  name: string
  type: string
  ttl: number
  values: string[]
}

function editable(type: string): type is RecordType {
  return (EDITABLE_TYPES as readonly string[]).includes(type)
}

/** One record set as a box serves it; A, AAAA, CNAME, MX and TXT sets can be edited or deleted whole. */
export function RecordRow({
  zoneId,
  record,
  onEdit,
  onWritten,
}: {
  zoneId: string
  record: RecordSet
  onEdit: (draft: RecordDraft) => void
  onWritten: (result: RecordWrite) => void
}) {
  const { can } = useSession()
  const { type } = record
  const remove = useMutation({
    mutationFn: (recordType: RecordType) =>
      api.dnsServers.zones.deleteRecord({ id: zoneId, name: record.name, type: recordType }),
    onSuccess: onWritten,
  })
  const label = `${record.name} ${type}`
  return (
    <tr>
      <th scope="row">{record.name}</th>
      <td>{type}</td>
      <td>{record.ttl}</td>
      <td>
        <ul className="plain">
          {record.values.map((value) => (
            <li key={value}>
              <code>{value}</code>
            </li>
          ))}
        </ul>
      </td>
      {can('settings:edit') && (
        <td>
          <div className="actions">
            {editable(type) ? (
              <>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => onEdit({ name: record.name, type, ttl: record.ttl, values: record.values })}
                >
                  Edit {label}
                </button>
                <ConfirmButton
                  label={`Delete ${label}`}
                  confirmLabel={`Yes, delete every ${label} value`}
                  onConfirm={() => remove.mutate(type)}
                  pending={remove.isPending}
                />
              </>
            ) : (
              <span className="note">kept by the panel and PowerDNS</span>
            )}
            {remove.isError && (
              <p role="alert" className="field-error">
                {errorText(remove.error)}
              </p>
            )}
          </div>
        </td>
      )}
    </tr>
  )
}

interface BoxWrite {
  nodeId: string
  name: string
  written: boolean
  error: string | null
  state: 'synced' | 'pending' | 'failed'
}

/** How each nameserver box took a write: a box that missed it catches up through its sync job. */
export function BoxResults({ boxes, caption }: { boxes: readonly BoxWrite[]; caption: string }) {
  if (boxes.length === 0) return <p className="note">{caption}: no box serves this zone.</p>
  return (
    <table className="box-results">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Box</th>
          <th scope="col">Written</th>
          <th scope="col">Sync state</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {boxes.map((box) => (
          <tr key={box.nodeId}>
            <th scope="row">{box.name}</th>
            <td className={`state ${box.written ? 'state-up' : 'state-down'}`}>
              {box.written ? 'yes' : 'no'}
            </td>
            <td>{box.state}</td>
            <td>{box.error ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

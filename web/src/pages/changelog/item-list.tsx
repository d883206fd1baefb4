import type { ReleaseItem } from './release-types'

/** A release's items as read-only text. */
export function ItemList({ items }: { items: readonly ReleaseItem[] }) {
  return (
    <ul>
      {items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: items have no id; their position is what the panel names
        <li key={index}>
          <strong>{item.category}</strong> {item.text}
        </li>
      ))}
    </ul>
  )
}

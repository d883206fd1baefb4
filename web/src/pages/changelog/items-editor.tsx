import { FieldError } from '../../components/form-problem'
import { CATEGORIES, type ReleaseItem } from './release-types'

/** A release's items: category and one line of plain text each, added and removed in place. */
export function ItemsEditor({
  items,
  onChange,
  error,
}: {
  items: ReleaseItem[]
  onChange: (items: ReleaseItem[]) => void
  error: unknown
}) {
  const set = (index: number, item: ReleaseItem) =>
    onChange(items.map((old, at) => (at === index ? item : old)))
  return (
    <fieldset className="items">
      <legend>Items</legend>
      {items.length === 0 ? <p className="note">No items.</p> : null}
      <ol hidden={items.length === 0}>
        {items.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: items have no id; their position is what the panel names
          <li key={index}>
            <label>
              Category of item {index + 1}
              <select
                value={item.category}
                onChange={(e) => set(index, { ...item, category: e.target.value as ReleaseItem['category'] })}
              >
                {CATEGORIES.map((category) => (
                  <option key={category}>{category}</option>
                ))}
              </select>
            </label>
            <label>
              Text of item {index + 1}
              <input
                type="text"
                value={item.text}
                onChange={(e) => set(index, { ...item, text: e.target.value })}
              />
              <FieldError error={error} field={`items.${index}.text`} />
              <FieldError error={error} field={`items.${index}`} />
            </label>
            <button
              type="button"
              className="secondary"
              onClick={() => onChange(items.filter((_, at) => at !== index))}
            >
              Remove item {index + 1}
            </button>
          </li>
        ))}
      </ol>
      <button
        type="button"
        className="secondary"
        onClick={() => onChange([...items, { category: 'new', text: '' }])}
      >
        Add an item
      </button>
      <FieldError error={error} field="items" />
    </fieldset>
  )
}

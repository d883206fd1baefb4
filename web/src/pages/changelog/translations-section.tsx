import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../../api'
import { FieldError, FormProblem } from '../../components/form-problem'
import type { Release } from './release-types'

type Translation = Release['i18n'][string]

function TranslationForm({
  release,
  lang: initialLang,
  translation,
  onDone,
}: {
  release: Release
  lang: string
  translation: Translation | undefined
  onDone: () => void
}) {
  const [lang, setLang] = useState(initialLang)
  const [title, setTitle] = useState(translation?.title ?? '')
  const [summary, setSummary] = useState(translation?.summary ?? '')
  const [items, setItems] = useState<string[]>(
    release.items.map((_, index) => translation?.items[index]?.text ?? ''),
  )
  const [machine, setMachine] = useState(translation?.machine ?? false)
  const queryClient = useQueryClient()
  const save = useMutation({
    mutationFn: () =>
      api.changelog.releases.setTranslation({
        id: release.id,
        lang,
        title,
        summary: summary.trim() === '' ? null : summary,
        items: items.map((text) => ({ text })),
        machine,
      }),
    onSuccess: (updated) => {
      queryClient.setQueryData(['changelog.releases.get', release.id], updated)
      onDone()
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate()
  }
  const itemPaths = items.map((_, index) => `items.${index}.text`)
  return (
    <form onSubmit={submit} aria-label={translation ? `Edit the ${lang} translation` : 'Add a translation'}>
      <label>
        Language tag
        <input
          type="text"
          value={lang}
          onChange={(e) => setLang(e.target.value)}
          required
          disabled={translation !== undefined}
          aria-describedby="lang-hint"
        />
        <span className="hint" id="lang-hint">
          BCP 47, e.g. de or pt-BR (stored in its canonical form)
        </span>
        <FieldError error={save.error} field="lang" />
      </label>
      <label>
        Title
        <input type="text" value={title} onChange={(e) => setTitle(e.target.value)} required />
        <span className="hint">Original: {release.title}</span>
        <FieldError error={save.error} field="title" />
      </label>
      <label>
        Summary
        <textarea rows={2} value={summary} onChange={(e) => setSummary(e.target.value)} />
        <FieldError error={save.error} field="summary" />
      </label>
      {release.items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: items have no id; their position is what the panel names
        <label key={index}>
          Item {index + 1}
          <input
            type="text"
            value={items[index] ?? ''}
            onChange={(e) => setItems(items.map((old, at) => (at === index ? e.target.value : old)))}
            required
          />
          <span className="hint">Original: {item.text}</span>
          <FieldError error={save.error} field={`items.${index}.text`} />
        </label>
      ))}
      <label className="check">
        <input type="checkbox" checked={machine} onChange={(e) => setMachine(e.target.checked)} />
        Machine translation (readers see a marker)
      </label>
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          Save translation
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <FormProblem error={save.error} fields={['lang', 'title', 'summary', ...itemPaths]} />
    </form>
  )
}

/** The release's translations: one per language, each marked when it is a machine's. */
export function TranslationsSection({ release, editable }: { release: Release; editable: boolean }) {
  const [editing, setEditing] = useState<string | null>(null)
  const queryClient = useQueryClient()
  const remove = useMutation({
    mutationFn: (lang: string) => api.changelog.releases.removeTranslation({ id: release.id, lang }),
    onSuccess: (updated) => queryClient.setQueryData(['changelog.releases.get', release.id], updated),
  })
  const entries = Object.entries(release.i18n)
  return (
    <section aria-labelledby="translations-heading">
      <h2 id="translations-heading">Translations</h2>
      {entries.length === 0 ? (
        <p>No translations: readers see the release's own text.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Language</th>
              <th scope="col">Title</th>
              <th scope="col">Machine</th>
              {editable && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {entries.map(([lang, translation]) => (
              <tr key={lang}>
                <td>{lang}</td>
                <td lang={lang}>{translation.title}</td>
                <td>{translation.machine ? 'yes' : 'no'}</td>
                {editable && (
                  <td className="actions">
                    <button type="button" className="secondary" onClick={() => setEditing(lang)}>
                      Edit {lang}
                    </button>
                    <button
                      type="button"
                      className="danger"
                      disabled={remove.isPending}
                      onClick={() => remove.mutate(lang)}
                    >
                      Remove {lang}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <FormProblem error={remove.error} />
      {editable &&
        (editing === null ? (
          <button type="button" className="secondary" onClick={() => setEditing('')}>
            Add a translation
          </button>
        ) : (
          <TranslationForm
            key={editing}
            release={release}
            lang={editing}
            translation={release.i18n[editing]}
            onDone={() => setEditing(null)}
          />
        ))}
    </section>
  )
}

import { type KeyValueStore, loadFeed } from './feed-cache'
import { widgetOptions } from './options'
import { mountWidget, renderFeed } from './render'
import { widgetStrings } from './strings'

// Read while the script runs: currentScript is only set during its first, synchronous run.
const script = document.currentScript

function browserStorage(): KeyValueStore | null {
  try {
    return window.localStorage
  } catch {
    return null
  }
}

function whenReady(run: () => void): void {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run, { once: true })
  else run()
}

/** Where the widget goes: inside data-target, else right after its script tag (or at the end of a body). */
function placeHost(tag: HTMLScriptElement, target: string | null, host: HTMLElement): boolean {
  if (target) {
    const parent = document.querySelector(target)
    parent?.append(host)
    return parent !== null
  }
  if (tag.parentElement && tag.parentElement !== document.head) tag.after(host)
  else document.body.append(host)
  return true
}

function start(tag: HTMLScriptElement): void {
  const options = widgetOptions(
    tag.dataset,
    navigator.languages.length > 0 ? navigator.languages : [navigator.language],
  )
  const origin = new URL(tag.src).origin
  const ui = widgetStrings(options.languages)
  const feed = loadFeed(origin, { fetch: (url, init) => fetch(url, init), storage: browserStorage() })
  whenReady(() => {
    try {
      const host = document.createElement('hosting-panel-changelog')
      if (!placeHost(tag, options.target, host)) return
      const section = mountWidget(host, ui)
      feed.then((loaded) => renderFeed(section, loaded, options, ui)).catch(() => undefined)
    } catch {
      // Never into the host page: a bad data-target selector or an old browser just shows no widget.
    }
  })
}

try {
  if (script instanceof HTMLScriptElement && script.src) start(script)
} catch {
  // As above: the embedding page must never see the widget fail.
}

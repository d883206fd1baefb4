import { type RefObject, useEffect } from 'react'

/**
 * On a narrow screen a wide table scrolls inside its own box (styles.css). Such a table gets `tabindex="0"` while
 * it scrolls, so a keyboard can reach and scroll it too; it loses it again once it fits. Watches `root` for
 * resizes and for tables coming and going.
 */
export function useKeyboardScrollingTables(root: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = root.current
    if (!element) return
    const update = () => {
      for (const table of element.querySelectorAll('table')) {
        const scrolls = table.scrollWidth > table.clientWidth + 1
        if (scrolls && !table.hasAttribute('tabindex')) table.setAttribute('tabindex', '0')
        if (!scrolls && table.getAttribute('tabindex') === '0') table.removeAttribute('tabindex')
      }
    }
    const resized = new ResizeObserver(update)
    resized.observe(element)
    const changed = new MutationObserver(update)
    changed.observe(element, { childList: true, subtree: true })
    update()
    return () => {
      resized.disconnect()
      changed.disconnect()
    }
  }, [root])
}

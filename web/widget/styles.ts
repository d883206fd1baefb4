/**
 * The widget's styles, scoped by its shadow root. `all: initial` on the root cuts every inherited property off
 * the host page; only the --changelog-* custom properties pass the shadow boundary, on purpose, for theming.
 */
export const WIDGET_CSS = `
:host { all: initial; display: block; }
:host([hidden]) { display: none; }
.root {
  all: initial; display: block; box-sizing: border-box;
  font-family: var(--changelog-font, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  font-size: var(--changelog-font-size, 15px); line-height: 1.5;
  color: var(--changelog-color, #1f2328); background: var(--changelog-background, transparent);
}
.root *, .root *::before, .root *::after { box-sizing: inherit; }
ol, ul, p, h2, h3, h4, h5, h6 { margin: 0; padding: 0; }
ol, ul { list-style: none; }
.release { padding: 0.75em 0; border-bottom: 1px solid var(--changelog-border, #d0d7de); }
.release:last-child { border-bottom: 0; }
.title { font-size: 1.1em; font-weight: 600; line-height: 1.3; }
.meta { margin-top: 0.15em; font-size: 0.85em; color: var(--changelog-muted, #57606a); }
.machine {
  display: inline-block; margin-left: 0.5em; padding: 0 0.4em; border: 1px solid currentColor;
  border-radius: 0.25em; font-size: 0.9em;
}
.summary { margin-top: 0.4em; }
.items { margin-top: 0.4em; }
.items li { margin-top: 0.2em; }
.category {
  display: inline-block; margin-right: 0.5em; font-size: 0.8em; font-weight: 600;
  text-transform: uppercase; letter-spacing: 0.03em; color: var(--changelog-accent, #0b5cad);
}
.note { font-size: 0.9em; color: var(--changelog-muted, #57606a); }
`

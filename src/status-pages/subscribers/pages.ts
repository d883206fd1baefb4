import { STATUS_STYLESHEET } from '../render-html'

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  )

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${STATUS_STYLESHEET}">
</head>
<body><main>
${body}
</main></body>
</html>
`
}

/**
 * The page a mailed link opens: one button that POSTs to the same URL (token and all). A GET changes nothing,
 * so mail scanners and link previews that fetch every link neither confirm nor unsubscribe anyone.
 */
export function actionPage(pageTitle: string, question: string, button: string, action: string): string {
  return page(
    pageTitle,
    `<h1>${escapeHtml(pageTitle)}</h1>
<p>${escapeHtml(question)}</p>
<form method="post" action="${escapeHtml(action)}"><button type="submit">${escapeHtml(button)}</button></form>`,
  )
}

/** What a link answers when done, or when it names nothing (used, expired or made up). */
export function messagePage(pageTitle: string, heading: string, text: string, pageUrl: string): string {
  return page(
    heading,
    `<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(text)}</p>
<p><a href="${escapeHtml(pageUrl)}">${escapeHtml(pageTitle)}</a></p>`,
  )
}

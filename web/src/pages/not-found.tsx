import { Link } from 'wouter'

/** A path no page answers, or a page the principal may not open. */
export function NotFoundPage() {
  return (
    <section>
      <h1>Not here</h1>
      <p>
        No page answers this address, or your role cannot open it. <Link href="/">Back to the overview</Link>
      </p>
    </section>
  )
}

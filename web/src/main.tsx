import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { Route, Switch } from 'wouter'
import { Layout } from './layout'
import { NotFoundPage } from './pages/not-found'
import { SignInPage } from './pages/sign-in'
import { routes } from './routes'
import { SessionGate, useSession } from './session'
import './styles.css'

const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 5_000 } } })

function Pages() {
  const { can } = useSession()
  return (
    <Layout>
      <Switch>
        {routes
          .filter((route) => !route.permission || can(route.permission))
          .map((route) => (
            <Route key={route.path} path={route.path} component={route.component} />
          ))}
        <Route component={NotFoundPage} />
      </Switch>
    </Layout>
  )
}

const root = document.getElementById('root')
if (!root) throw new Error('no #root element')
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionGate signedOut={<SignInPage />}>
        <Pages />
      </SessionGate>
    </QueryClientProvider>
  </StrictMode>,
)

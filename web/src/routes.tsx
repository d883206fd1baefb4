import type { ComponentType } from 'react'
import { HomePage } from './pages/home'
import type { Permission } from './session'

/** One page of the panel: its path (wouter syntax), the permission it needs, and its entry in the navigation. */
export interface PageRoute {
  path: string
  component: ComponentType
  /** Shown only to principals holding it; absent for pages any signed-in principal sees. */
  permission?: Permission
  /** The navigation label; pages reached from another page (a site, a probe) have none. */
  nav?: string
}

// Each area adds its pages here.
export const routes: PageRoute[] = [{ path: '/', component: HomePage, nav: 'Overview' }]

import type { Express } from 'express';

/** The parts of an express 5 (router 2) layer this walk reads. */
interface Layer {
  name: string;
  /** Path the layer was mounted at with `use` (undefined for routes and root mounts). */
  rawPath?: string;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

export interface RegisteredRoutes {
  /** `GET /projects/:slug`, … (HEAD comes with GET and is not listed). */
  routes: string[];
  /** Paths where a middleware that is not a router is mounted (static files, …): requests there bypass routes. */
  mounts: string[];
}

/**
 * Every route of an express app, found by walking its router stack and the routers mounted in it.
 * Fails on what it cannot read exactly (a route path that is not a string, `all` routes), so a
 * new kind of registration cannot slip past the authorization test.
 */
export function registeredRoutes(app: Express): RegisteredRoutes {
  const found: RegisteredRoutes = { routes: [], mounts: [] };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', found);
  return found;
}

function walk(stack: Layer[], prefix: string, found: RegisteredRoutes): void {
  for (const layer of stack) {
    const mountedAt = `${prefix}${layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : ''}`;
    if (layer.route) {
      if (typeof layer.route.path !== 'string') throw new Error(`route with a non-string path under ${prefix || '/'}`);
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (method === '_all') throw new Error(`an \`all\` route at ${layer.route.path}: the authorization table has no rule for it`);
        if (on) found.routes.push(`${method.toUpperCase()} ${prefix}${layer.route.path}`);
      }
    } else if (layer.handle.stack) {
      walk(layer.handle.stack, mountedAt, found);
    } else if (mountedAt) {
      found.mounts.push(mountedAt);
    }
  }
}

import type { RouteDef } from './routes/context.js';

/** A matched route with its decoded path parameters. */
export interface RouteMatch {
  route: RouteDef;
  params: Record<string, string>;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Matches method and path against route templates; first match wins. */
export class Router {
  private readonly compiled: Array<{ route: RouteDef; segments: string[] }>;

  constructor(routes: readonly RouteDef[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split('/') }));
  }

  /** The route for `method` and `path` (no query), or undefined (served as 404 `not_found`). */
  match(method: string, path: string): RouteMatch | undefined {
    const parts = path.split('/');
    const m = method === 'HEAD' ? 'GET' : method;
    for (const { route, segments } of this.compiled) {
      if (route.method !== m || segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const seg = segments[i] ?? '';
        const part = parts[i] ?? '';
        if (seg.startsWith(':')) {
          if (part === '') ok = false;
          else params[seg.slice(1)] = decodeSegment(part);
        } else if (seg !== part) ok = false;
      }
      if (ok) return { route, params };
    }
    return undefined;
  }
}

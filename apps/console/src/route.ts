import { useEffect, useState } from 'preact/hooks';

/** The page and its parameters, kept in the URL's fragment (`#/insights?from=…`) so a view can be shared. */
export interface Route {
  page: string;
  /** the path after the page, decoded (a flag name, a project id) */
  arg: string;
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const h = hash.replace(/^#\/?/, '');
  const q = h.indexOf('?');
  const path = q < 0 ? h : h.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : h.slice(q + 1));
  const slash = path.indexOf('/');
  const page = slash < 0 ? path : path.slice(0, slash);
  let arg = '';
  try {
    arg = slash < 0 ? '' : decodeURIComponent(path.slice(slash + 1));
  } catch {
    arg = '';
  }
  return { page: page || 'insights', arg, params };
}

export function href(page: string, arg = '', params?: Record<string, string | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v) p.set(k, v);
  const qs = p.toString();
  return `#/${page}${arg ? `/${encodeURIComponent(arg)}` : ''}${qs ? `?${qs}` : ''}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** A transport-neutral HTTP answer that handlers map to API Gateway or the local server. */
export interface HttpAnswer {
  status: number;
  /** A string is sent as text, a Uint8Array as bytes, anything else as JSON. */
  body: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export const jsonError = (
  status: number,
  error: string,
  message: string,
  extra: Record<string, unknown> = {},
): HttpAnswer => ({
  status,
  body: { ...extra, error, message },
});

/** A percent-decoded path segment, or null when the encoding is malformed (a 400, never a thrown 500). */
export function decodePathSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * Whether an Accept or Accept-Encoding header names `value` (a media type, a content coding) itself, not
 * through a wildcard, with a weight above zero: `gzip;q=0` refuses gzip.
 */
export function accepts(header: string | undefined, value: string): boolean {
  return (header ?? '').split(',').some((range) => {
    const [named, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const weight = params.find((p) => p.startsWith('q='));
    return named === value && (weight === undefined || Number(weight.slice(2)) > 0);
  });
}

/**
 * A route of either HTTP API: a method and a path whose segments are literal, `:name` (a whole segment) or
 * `prefix:name` (the rest of a segment after a prefix).
 */
export interface RoutePattern {
  method: string;
  path: string;
}

/**
 * How a request meets a route table: its percent-encoding is malformed, no route has its path, its path is
 * served under other methods only (`allow`), or a route takes it with the path's named segments. HEAD is
 * matched as GET. `parts` are the decoded path segments.
 */
export type RouteMatch<R extends RoutePattern> =
  | { kind: 'bad-path' }
  | { kind: 'no-route'; parts: string[] }
  | { kind: 'wrong-method'; parts: string[]; allow: string }
  | { kind: 'route'; parts: string[]; route: R; params: Record<string, string> };

export function matchRoute<R extends RoutePattern>(routes: readonly R[], method: string, path: string): RouteMatch<R> {
  const decoded = path.split('/').filter(Boolean).map(decodePathSegment);
  if (decoded.some((p) => p === null)) return { kind: 'bad-path' };
  const parts = decoded as string[];
  const asMethod = method === 'HEAD' ? 'GET' : method;
  const allowed = new Set<string>();
  for (const route of routes) {
    const params = matchPath(route.path, parts);
    if (!params) continue;
    if (route.method === asMethod) return { kind: 'route', parts, route, params };
    allowed.add(route.method);
  }
  return allowed.size ? { kind: 'wrong-method', parts, allow: [...allowed].join(', ') } : { kind: 'no-route', parts };
}

/** The named segments of `parts` when they fit the pattern, else null. */
function matchPath(pattern: string, parts: string[]): Record<string, string> | null {
  const segments = pattern.split('/').filter(Boolean);
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (const [k, segment] of segments.entries()) {
    const part = parts[k]!;
    const colon = segment.indexOf(':');
    if (colon === -1) {
      if (part !== segment) return null;
      continue;
    }
    const prefix = segment.slice(0, colon);
    if (!part.startsWith(prefix) || part.length === prefix.length) return null;
    params[segment.slice(colon + 1)] = part.slice(prefix.length);
  }
  return params;
}

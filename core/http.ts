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

// The cockpit's only way to the read API (docs/contract.md §10). Paths and bodies are the typed contract in
// shared/analytics/contract.ts; a signed-in cockpit adds its bearer token.
import { DOWNLOAD_LINK_HEADER, type ApiErrorBody, type ExportPartsBody } from '#analytics/contract.ts';

/** A refused or failed request: `message` is the server's own sentence, `what` the path that was asked for. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly what: string,
  ) {
    super(message);
  }
}

export class Api {
  constructor(
    private readonly root: string,
    private readonly token: () => string | null = () => null,
  ) {}

  /** The full address of path under the API root, for a plain link. */
  url(path: string): string {
    return this.root + path;
  }

  /** Whether requests carry a bearer token, which a plain link cannot send. */
  get signedIn(): boolean {
    return this.token() !== null;
  }

  /** Fetches a URL under the API root with the token and hands it to the browser as a file (a plain link cannot send the token). */
  async download(href: string, filename: string): Promise<void> {
    const path = new URL(href, location.href).href.slice(new URL(this.root, location.href).href.length);
    const response = await this.get(path, { asksLink: true });
    // An export too large for one answer comes as a short-lived link to object storage, which must not get the
    // token; one the engine wrote in parts, as a link to each part.
    const kind = response.headers.get(DOWNLOAD_LINK_HEADER);
    const files =
      kind === 'link'
        ? [{ link: ((await response.json()) as { link: string }).link, filename }]
        : kind === 'parts'
          ? ((await response.json()) as ExportPartsBody).parts
          : [{ link: URL.createObjectURL(await response.blob()), filename }];
    for (const file of files) {
      const a = Object.assign(document.createElement('a'), { href: file.link, download: file.filename });
      document.body.append(a);
      a.click();
      a.remove();
    }
    if (!kind) setTimeout(() => URL.revokeObjectURL(files[0]!.link), 60_000);
  }

  async json<T>(path: string): Promise<T> {
    const response = await this.get(path);
    return (await response.json()) as T;
  }

  /** The answer at path, for the caller to read as it streams in (see `loadSpaceRuns`). */
  response(path: string, options: { accept: string; signal: AbortSignal }): Promise<Response> {
    return this.get(path, options);
  }

  /** The body at path, or the API's sentence saying why there is none (404) or why it is not shown (403). */
  async optionalJson<T>(path: string): Promise<{ body: T } | { missing: string }> {
    try {
      return { body: await this.json<T>(path) };
    } catch (e) {
      if (e instanceof ApiError && (e.status === 404 || e.status === 403)) return { missing: e.message };
      throw e;
    }
  }

  /** The text at path, or null when the API says there is none (404). */
  async text(path: string): Promise<string | null> {
    try {
      return await (await this.get(path)).text();
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  }

  private async get(
    path: string,
    options: { accept?: string; signal?: AbortSignal; asksLink?: boolean } = {},
  ): Promise<Response> {
    const token = this.token();
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.accept) headers.accept = options.accept;
    if (options.asksLink) headers[DOWNLOAD_LINK_HEADER] = 'link';
    const response = await fetch(this.root + path, { headers, signal: options.signal });
    if (!response.ok) {
      let message = `${response.status} ${response.statusText}`;
      try {
        message = ((await response.json()) as ApiErrorBody).message ?? message;
      } catch {
        // not a JSON error body: keep the status line
      }
      throw new ApiError(response.status, message, `${this.root}${path}`);
    }
    return response;
  }
}

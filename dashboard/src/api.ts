// The cockpit's only way to the read API (SPEC §10). Paths and bodies are the typed contract in
// shared/read/contract.ts; a signed-in cockpit adds its bearer token.
import type { ApiErrorBody } from '../../shared/read/contract.ts';

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export class Api {
  constructor(
    private readonly root: string,
    private readonly token: () => string | null = () => null,
  ) {}

  async json<T>(path: string): Promise<T> {
    const response = await this.get(path);
    return (await response.json()) as T;
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

  private async get(path: string): Promise<Response> {
    const token = this.token();
    const response = await fetch(this.root + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    if (!response.ok) {
      let message = `${response.status} ${response.statusText}`;
      try {
        message = ((await response.json()) as ApiErrorBody).message ?? message;
      } catch {
        // not a JSON error body: keep the status line
      }
      throw new ApiError(response.status, message);
    }
    return response;
  }
}

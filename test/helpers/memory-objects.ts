// An object store in memory, for unit tests of code that reads and writes objects: keys to bytes, with
// the port's contract (null for a missing key, listing by prefix in key order).
import type { ObjectStore } from '../../shared/ports.ts';

export class MemoryObjects implements ObjectStore {
  readonly objects = new Map<string, Uint8Array>();

  async put(key: string, body: string | Uint8Array): Promise<void> {
    this.objects.set(key, typeof body === 'string' ? Buffer.from(body) : Uint8Array.from(body));
  }

  async getText(key: string): Promise<string | null> {
    const body = this.objects.get(key);
    return body ? Buffer.from(body).toString('utf8') : null;
  }

  async getBytes(key: string): Promise<Uint8Array | null> {
    return this.objects.get(key) ?? null;
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }

  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
}

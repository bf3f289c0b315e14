// An object store that refuses what an IAM grant would (infra/aws/constructs/object-access-policy.ts): each call
// checked against the grant's key patterns (`*`: any characters, "/" included), a listing against its prefixes.
// The emulators grant everything, so local mode gives each function the data bucket through its own grant, and a
// code path that needs a right AWS would refuse fails here first.
import type { ObjectStore } from '#core/ports.ts';
import type { KeyGrant } from '#core/storage-layout.ts';

const ACTION_OF: Record<keyof ObjectStore, keyof KeyGrant> = {
  put: 'put',
  putIfAbsent: 'put',
  putIfMatch: 'put',
  getWithEtag: 'get',
  getText: 'get',
  getBytes: 'get',
  delete: 'delete',
  list: 'list',
  listWrittenBefore: 'list',
};

/** An IAM key pattern as a regular expression: `*` any characters, `?` one, and `${*}`, `${?}`, `${$}` themselves. */
function patternOf(pattern: string): RegExp {
  const parts = pattern.split(/(\$\{[*?$]\}|[*?])/).map((part) => {
    if (part === '*') return '.*';
    if (part === '?') return '.';
    const literal = /^\$\{([*?$])\}$/.exec(part)?.[1] ?? part;
    return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${parts.join('')}$`, 's');
}
/** `store` as a function holding only `grant` sees it: a call outside it is refused (AccessDenied, naming the key). */
export function grantedOnly<S extends ObjectStore>(store: S, grant: KeyGrant): S {
  // Compiled once: local mode checks every object call of every function.
  const allowed = Object.fromEntries(
    (['get', 'put', 'delete', 'list'] as const).map((action) => [action, (grant[action] ?? []).map(patternOf)]),
  ) as Record<keyof KeyGrant, RegExp[]>;
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      const action = ACTION_OF[name as keyof ObjectStore];
      if (!action || typeof value !== 'function') return value;
      return (key: string, ...rest: unknown[]) => {
        if (!allowed[action].some((pattern) => pattern.test(key)))
          return Promise.reject(Object.assign(new Error(`AccessDenied: ${action} ${key}`), { name: 'AccessDenied' }));
        return (value as (...args: unknown[]) => unknown).apply(target, [key, ...rest]);
      };
    },
  });
}

// Sign-in for a deployed, non-public cockpit: OAuth 2.0 authorization code with PKCE against the
// Cognito hosted UI named in cockpit.json. The ID token (its audience is this cockpit's client, which
// the API's JWT authorizer checks) lives in sessionStorage only, so closing the tab signs out.
import type { CockpitSettings } from '#analytics/contract.ts';

type SignIn = NonNullable<CockpitSettings['signIn']>;

const KEY = 'replay-cockpit-sign-in';

interface Stored {
  idToken: string;
  expiresAt: number;
}

export function currentToken(): string | null {
  const stored = readJson<Stored>(`${KEY}:token`);
  return stored && stored.expiresAt > Date.now() + 30_000 ? stored.idToken : null;
}

/** Resolves with a token, finishing a sign-in that just came back, or navigates to the sign-in page. */
export async function ensureSignedIn(signIn: SignIn): Promise<string> {
  const token = currentToken();
  if (token) return token;
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const pending = readJson<{ state: string; verifier: string; returnTo: string }>(`${KEY}:pending`);
  if (code && pending && params.get('state') === pending.state) {
    sessionStorage.removeItem(`${KEY}:pending`);
    const response = await fetch(signIn.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: signIn.clientId,
        code,
        redirect_uri: signIn.redirectUri,
        code_verifier: pending.verifier,
      }),
    });
    if (!response.ok) throw new Error(`Sign-in failed: the token endpoint answered ${response.status}.`);
    const body = (await response.json()) as { id_token: string; expires_in: number };
    sessionStorage.setItem(
      `${KEY}:token`,
      JSON.stringify({ idToken: body.id_token, expiresAt: Date.now() + body.expires_in * 1000 } satisfies Stored),
    );
    history.replaceState(null, '', pending.returnTo);
    return body.id_token;
  }
  await startSignIn(signIn);
  return new Promise<string>(() => {});
}

export function signOut(signIn: SignIn): void {
  sessionStorage.removeItem(`${KEY}:token`);
  location.assign(
    `${signIn.logoutUrl}?${new URLSearchParams({ client_id: signIn.clientId, logout_uri: signIn.redirectUri })}`,
  );
}

async function startSignIn(signIn: SignIn): Promise<void> {
  const verifier = randomUrlSafe(48);
  const state = randomUrlSafe(16);
  const challenge = base64Url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(
    `${KEY}:pending`,
    JSON.stringify({ state, verifier, returnTo: location.pathname + location.search }),
  );
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: signIn.clientId,
    redirect_uri: signIn.redirectUri,
    scope: signIn.scopes.join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  location.assign(`${signIn.authorizeUrl}?${query}`);
}

function readJson<T>(key: string): T | null {
  try {
    return JSON.parse(sessionStorage.getItem(key) ?? 'null') as T | null;
  } catch {
    return null;
  }
}

const randomUrlSafe = (bytes: number) => base64Url(crypto.getRandomValues(new Uint8Array(bytes)));

const base64Url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

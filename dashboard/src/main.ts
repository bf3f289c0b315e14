// The cockpit's entry (docs/contract.md §6): finds which cockpit it is, asks for the space's runs in columnar
// form and its issues, and meanwhile loads the rest of the cockpit (cockpit.ts) as a chunk of its own, so
// that nothing but what asks for the runs runs before they are asked for.
import {
  apiPaths,
  COCKPIT_ISSUE_FIELDS,
  COCKPIT_SETTINGS_FILE,
  type CockpitIssuesBody,
  type CockpitSettings,
} from '#analytics/contract.ts';
import { Api, ApiError } from './page/api.ts';
import type { Cockpit, Located } from './page/cockpit.ts';
import { byId, el, fill } from './widgets/dom.ts';
import { currentToken, ensureSignedIn, signOut } from './page/sign-in.ts';
import { loadSpaceRuns } from './page/space-runs.ts';
import { readState } from './page/url-state.ts';

/** cockpit.json lists the cockpits this page may show (a deployed cockpit: itself; local mode: all of them). */
async function locate(wanted: string | null): Promise<Located | null> {
  const response = await fetch(`/${COCKPIT_SETTINGS_FILE}`);
  if (!response.ok) throw new Error(`The cockpit settings (/${COCKPIT_SETTINGS_FILE}) answered ${response.status}.`);
  const settings = (await response.json()) as CockpitSettings;
  const cockpit = settings.cockpits.find((c) => c.name === wanted) ?? settings.cockpits[0];
  return cockpit ? { cockpit, all: settings.cockpits, settings } : null;
}

function renderHeader(located: Located) {
  const { cockpit, all, settings } = located;
  document.title = `${cockpit.name} · replay-bench cockpit`;
  const name = byId('cockpit-name');
  name.textContent = cockpit.name;
  name.title = `Space ${cockpit.space}`;
  // A cockpit named after its space does not say the name twice.
  byId('cockpit-space').textContent = cockpit.space === cockpit.name ? '' : `space ${cockpit.space}`;
  const switcher = byId('cockpit-switcher');
  switcher.replaceChildren();
  if (all.length > 1) {
    const select = el(
      'select',
      { 'aria-label': 'Cockpit' },
      ...all.map((c) => el('option', { value: c.name, selected: c.name === cockpit.name }, `${c.name} (${c.space})`)),
    );
    select.addEventListener('change', () => location.assign(`?cockpit=${encodeURIComponent(select.value)}`));
    fill(switcher, select);
  }
  if (settings.signIn) {
    const signIn = settings.signIn;
    const out = el('button', { class: 'link' }, 'Sign out');
    out.addEventListener('click', () => signOut(signIn));
    switcher.append(out);
  }
}

/** What failed, in the server's own sentence, and a way to try again without reloading by hand. */
function fatal(error: Error) {
  const retry = el('button', { type: 'button', class: 'retry' }, 'Retry');
  retry.addEventListener('click', () => {
    fill(byId('boot-state'), el('p', { class: 'loading' }, 'Loading the cockpit…'));
    document.documentElement.dataset.ready = 'false';
    start();
  });
  const what =
    error instanceof ApiError ? `Loading ${error.what} failed (HTTP ${error.status}): ${error.message}` : error.message;
  fill(
    byId('boot-state'),
    el(
      'div',
      { class: 'fatal error-state', role: 'alert' },
      el('h2', {}, 'The cockpit cannot show this space'),
      el('p', { id: 'fatal-message' }, what),
      retry,
    ),
  );
  byId('live-status').textContent = '';
  document.documentElement.dataset.ready = 'error';
  retry.focus();
}

async function boot() {
  const wanted = readState().cockpit;
  const located = await locate(wanted);
  if (!located)
    return fatal(
      new Error('No cockpit is configured. Add one under "cockpits" in the configuration file and restart.'),
    );
  renderHeader(located);
  if (located.settings.signIn) await ensureSignedIn(located.settings.signIn);
  const api = new Api(located.settings.api, currentToken);
  const space = located.cockpit.space;
  // Hosts count their runs, which takes a while in a big space: they arrive after the first render.
  // Marked as each arrives, for the benchmark's account of where the first render's time goes.
  const marked = <T>(name: string, loading: Promise<T>) => loading.then((value) => (performance.mark(name), value));
  // The cockpit's views go into the page, hidden, while the runs load: the browser's autofill answers new
  // <select>s with a layout of the whole page, cheap now, some 200 ms once a big space's charts are in.
  shell ??= import('./page/cockpit.ts').then(({ Cockpit }) => new Cockpit(api, located));
  const [runs, issues, cockpit] = await Promise.all([
    marked('runs-loaded', loadSpaceRuns(api, space)),
    marked('issues-loaded', api.json<CockpitIssuesBody>(apiPaths.issues(space, COCKPIT_ISSUE_FIELDS))),
    shell,
  ]);
  if ('engine' in runs) {
    cockpit.standDown();
    const { EngineCockpit } = await import('./page/engine-cockpit.ts');
    return new EngineCockpit(api, located, runs, issues.issues).start();
  }
  cockpit.start(runs.table, runs.asOf, issues.issues, runs.catchUpError);
}

/** One per page: a retry after a failed load starts the same cockpit. */
let shell: Promise<Cockpit> | null = null;

const start = () => void boot().catch((e: unknown) => fatal(e as Error));
start();

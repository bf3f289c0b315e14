// The Hosts area: the space's senders, their hardware, whether they are paired (a key exists) and when
// they last delivered.
import type { HostRecord } from '#schema/host.ts';
import { el, fill } from '../widgets/dom.ts';
import { ago, count, instant, UNKNOWN } from '../widgets/format.ts';

export class HostsView {
  readonly root = el('div', { class: 'hosts', id: 'hosts-area', role: 'tabpanel', 'aria-labelledby': 'tab-hosts' });

  render(hosts: HostRecord[] | null, space: string): void {
    if (!hosts) {
      fill(this.root, el('p', { class: 'loading' }, 'Loading the senders…'));
      return;
    }
    const since = (iso: string | null) => (iso ? `${instant(iso)} (${ago(Date.now() - Date.parse(iso))})` : 'never');
    fill(
      this.root,
      el('h2', {}, `Senders of ${space}`),
      el(
        'p',
        { class: 'card-explain' },
        'Hosts listed as senders in the configuration. A host is paired when a key exists for it; an unpaired host queues its runs until it gets one.',
      ),
      el(
        'div',
        { class: 'table-scroll' },
        el(
          'table',
          { class: 'figures hosts-table' },
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ...['Host', 'Hardware', 'Paired', 'Runs landed', 'First delivery', 'Last delivery', 'Spaces'].map((h) =>
                el('th', { scope: 'col', class: h === 'Runs landed' ? 'num' : undefined }, h),
              ),
            ),
          ),
          el(
            'tbody',
            {},
            ...hosts.map((h) =>
              el(
                'tr',
                {},
                el('td', { class: 'text' }, h.host),
                el('td', { class: h.hostHardware ? 'text' : 'text unknown' }, h.hostHardware ?? UNKNOWN),
                el(
                  'td',
                  {},
                  el('span', { class: `paired ${h.paired ? 'yes' : 'no'}` }, h.paired ? 'paired' : 'no key'),
                ),
                el('td', { class: 'num' }, count(h.runsLanded)),
                el('td', {}, since(h.firstDeliveryAt)),
                el('td', {}, since(h.lastDeliveryAt)),
                el('td', { class: 'text' }, h.spaces.join(', ') || '–'),
              ),
            ),
          ),
        ),
      ),
    );
  }
}

// Compare's all pairs and its quotable sentence (docs/contract.md §6) in headless Chromium on a demo campaign with
// hidden tests: more than 12 configurations in view are refused with a sentence; fewer are compared pair by
// pair with McNemar's exact p and Holm's adjustment, sorted by it, captioned where the harness versions
// differ, each row leading to its pair; one pair reads as the one template of the quotable sentence, the
// Holm clause included, copied by its button, and at 800 px no axis label covers another. Expected figures are counted in the test from export.json, with its
// own binomial coefficients and its own Holm (helpers/independent-figures.ts). Screenshots: test-results/.
import { describe, expect, it } from '@jest/globals';
import { countGroups, pairsOf, pWritten, wilson, type IndependentPair } from './helpers/independent-figures.ts';
import { judgedAnalysisCampaign, SHOTS } from './helpers/judged-campaign.ts';

const SPACE = 'PairsSpace';
const { pages, world } = judgedAnalysisCampaign(SPACE, 'Pairs');

describe('all pairs', () => {
  it('asks to narrow the filter when more than 12 configurations are in view', async () => {
    const configurations = countGroups(world.runs, 'tests').length;
    expect(configurations).toBeGreaterThan(12);
    const p = await pages.open('/?view=compare');
    await p.locator('[data-mode="all"]').click();
    await p.waitForURL((u) => u.searchParams.get('pairs') === 'all');
    expect(await p.locator('#all-pairs-refused').innerText()).toBe(
      `${configurations} configurations are in view; all pairs compares at most 12 (66 pairs). Narrow the filter (model or harness version) to 12 or fewer.`,
    );
    await p.close();
  });

  it('compares every pair of one harness version with McNemar’s p and Holm’s adjustment, sorted by it', async () => {
    const inView = world.runs.filter((r) => r.harnessVersion === 'paper');
    const expected = pairsOf(countGroups(inView, 'tests'), 'tests');
    expect(expected.filter((x) => x.holm !== null).length).toBeGreaterThan(5);
    const p = await pages.open('/?view=compare&pairs=all&harness=paper', { width: 1440, height: 900 });
    const rows = p.locator('#all-pairs-table tbody tr');
    expect(await rows.count()).toBe(expected.length);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({
        a: tr.querySelector('th')!.textContent,
        b: tr.querySelector('td')!.textContent,
        pairs: tr.querySelector('[data-cell="pairs"]')!.textContent,
        p: tr.querySelector('[data-cell="p"]')!.textContent,
        holm: tr.querySelector('[data-cell="holm"]')!.textContent,
        note: tr.querySelector('[data-cell="note"]')!.textContent,
      })),
    );
    const want = new Map(
      expected.map((x) => [
        `${x.a.model}|${x.b.model}`,
        {
          a: x.a.model,
          b: x.b.model,
          pairs: String(x.pairs),
          p: x.p === null ? '–' : pWritten(x.p),
          holm: x.holm === null ? '–' : pWritten(x.holm),
          note: x.p === null ? 'fewer than 10 shared tasks: not compared' : '',
        },
      ]),
    );
    for (const row of shown) expect(row).toEqual(want.get(`${row.a}|${row.b}`));
    // Sorted by the adjusted p (those without one last).
    const order = shown.map((r) => expected.find((x) => x.a.model === r.a && x.b.model === r.b)!.holm ?? Infinity);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    await p.locator('#compare-area').screenshot({ path: `${SHOTS}/cockpit-all-pairs.png` });
    // A row opens its pair's Compare view, and Back returns to all pairs.
    const first = expected.find((x) => x.a.model === shown[0]!.a && x.b.model === shown[0]!.b)!;
    await rows.first().locator('a.pair-link').click();
    await p.waitForURL((u) => !u.searchParams.has('pairs') && u.searchParams.getAll('a')[0] === first.a.model);
    expect(new URL(p.url()).searchParams.getAll('b')).toEqual([first.b.model, 'paper']);
    expect(await p.locator('#compare-a option:checked').innerText()).toBe(`${first.a.model} · paper`);
    await p.goBack();
    await p.waitForURL((u) => u.searchParams.get('pairs') === 'all');
    await p.close();
  });

  it('says where the two sides of a pair ran different harness versions', async () => {
    const models = ['GPT-5', 'Claude 4.5 Sonnet', 'Kimi', 'GPT-4o'];
    const inView = world.runs.filter((r) => models.includes(r.model));
    const expected = pairsOf(countGroups(inView, 'tests'), 'tests');
    const mixed = expected.filter((x) => x.a.harnessVersion !== x.b.harnessVersion);
    expect(mixed.length).toBeGreaterThan(0);
    const search = new URLSearchParams([['view', 'compare'], ['pairs', 'all'], ...models.map((m) => ['model', m])]);
    const p = await pages.open(`/?${search}`);
    const notes = await p
      .locator('#all-pairs-table tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.getAttribute('data-a'),
          tr.getAttribute('data-b'),
          tr.querySelector('[data-cell="note"]')!.textContent,
        ]),
      );
    for (const [a, b, note] of notes) {
      const [aHarness, bHarness] = [a!.split('\u0000')[1], b!.split('\u0000')[1]];
      const row = expected.find(
        (x) => `${x.a.model}\u0000${x.a.harnessVersion}` === a && `${x.b.model}\u0000${x.b.harnessVersion}` === b,
      )!;
      if (row.p === null) continue;
      expect(note).toBe(
        aHarness === bHarness ? '' : 'different harness versions: the difference mixes model and harness',
      );
    }
    expect(notes.filter(([, , note]) => note!.startsWith('different harness')).length).toBe(
      mixed.filter((x) => x.p !== null).length,
    );
    await p.close();
  });
});

/** The template of docs/contract.md §6 written out from the counts, around the interval's bounds. */
function sentence(x: IndependentPair, familySize: number): [string, string] {
  const signed = (v: number) => `${v > 0 ? '+' : v < 0 ? '−' : '±'}${(Math.abs(v) * 100).toFixed(1)}`;
  const [ra, rb] = [x.both + x.aOnly, x.both + x.bOnly];
  const share = (k: number) => `${((k / x.pairs) * 100).toFixed(1)}%`;
  const p = x.p! < 0.001 ? 'p < 0.001' : `p = ${pWritten(x.p!)}`;
  return [
    `On ${x.pairs} tasks both ran (outcome: hidden tests), ${x.a.model} · paper resolved ${ra} (${share(ra)}) and ` +
      `${x.b.model} · paper ${rb} (${share(rb)}): a difference of ${signed((x.aOnly - x.bOnly) / x.pairs)} points (95% CI `,
    `), McNemar ${p} (Holm-adjusted over ${familySize} pairs: ${pWritten(x.holm!)}).`,
  ];
}

describe('the sentence to quote', () => {
  it('follows the one template, with the Holm clause over the pairs in view, and its button copies it', async () => {
    const inView = world.runs.filter((r) => r.harnessVersion === 'paper');
    const pairs = pairsOf(countGroups(inView, 'tests'), 'tests');
    const family = pairs.filter((x) => x.holm !== null);
    const x = family.sort((u, v) => u.holm! - v.holm!)[0]!;
    const search = new URLSearchParams([
      ['view', 'compare'],
      ['harness', 'paper'],
      ['a', x.a.model],
      ['a', 'paper'],
      ['b', x.b.model],
      ['b', 'paper'],
    ]);
    const p = await pages.open(`/?${search}`);
    await p.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    // The comparison's sentence, then what its tasks are (the cockpit's campaign, the harness difference).
    const [text = '', tasks] = (await p.locator('#compare-sentence').innerText()).split(' The tasks: ');
    expect(tasks).toMatch(/tasks in view/);
    // Everything but the interval's bounds, which the Newcombe unit tests check, is written out here.
    const [before, after] = sentence(x, family.length);
    expect(text.slice(0, before.length)).toBe(before);
    expect(text.slice(-after.length)).toBe(after);
    expect(text.slice(before.length, -after.length)).toMatch(/^[+−±]\d+\.\d to [+−±]\d+\.\d$/);
    // The rates the sentence names are the ones beside it, with their Wilson intervals.
    const [lo, hi] = wilson(x.both + x.aOnly, x.pairs);
    expect(await p.locator('.compare-rates li').first().innerText()).toContain(
      `${(((x.both + x.aOnly) / x.pairs) * 100).toFixed(0)}% (95% CI ${(lo * 100).toFixed(0)}%–${(hi * 100).toFixed(0)}%`,
    );
    await p.locator('#copy-sentence').click();
    await p.locator('#copy-status', { hasText: 'Copied to the clipboard.' }).waitFor();
    expect(await p.evaluate(() => navigator.clipboard.readText())).toBe(`${text} The tasks: ${tasks}`);
    await p.close();
  });

  it('has no axis label covering another at 800, 1024 and 1440 px', async () => {
    const inView = world.runs.filter((r) => r.harnessVersion === 'paper');
    const x = pairsOf(countGroups(inView, 'tests'), 'tests').find((y) => y.p !== null)!;
    const search = new URLSearchParams([
      ['view', 'compare'],
      ['a', x.a.model],
      ['a', 'paper'],
      ['b', x.b.model],
      ['b', 'paper'],
    ]);
    for (const width of [800, 1024, 1440]) {
      const p = await pages.open(`/?${search}`, { width, height: 900 });
      await p.screenshot({ path: `${SHOTS}/cockpit-compare-${width}.png` });
      const labels = await p
        .locator('#compare-area .bar-tick, #compare-area .bar-axis-title')
        // The text's own box, not its element's (the title's element spans the whole axis).
        .evaluateAll((nodes) =>
          nodes
            .map((n) => {
              const range = document.createRange();
              range.selectNodeContents(n);
              return range.getBoundingClientRect();
            })
            .map((r) => [r.left, r.right, r.top, r.bottom]),
        );
      expect(labels.length).toBeGreaterThan(4);
      for (let i = 0; i < labels.length; i++)
        for (let j = i + 1; j < labels.length; j++) {
          const [a, b] = [labels[i]!, labels[j]!];
          const overlap = a[0]! < b[1]! - 0.5 && b[0]! < a[1]! - 0.5 && a[2]! < b[3]! - 0.5 && b[2]! < a[3]! - 0.5;
          expect({ width, i, j, overlap }).toEqual({ width, i, j, overlap: false });
        }
      const scrolls = await p.evaluate(
        () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
      );
      expect(scrolls).toBe(false);
      await p.close();
    }
  });
});

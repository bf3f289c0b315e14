// Small samples (docs/contract.md §6) in headless Chromium on a demo campaign with hidden tests, its cockpit's minN
// set above some configurations' n: those are shown greyed as "too few to rank", without a rank, after the
// ranked ones; Compare refuses a pair of fewer than 10 shared tasks and says how many there are; the
// empirical difficulty filter (beside the senders' tiers) narrows to the tasks of its band, and the
// breakdown card shows the rates per tier, difficulty and wave. Expected figures are counted in the test
// from export.json (helpers/independent-figures.ts).
import { describe, expect, it } from '@jest/globals';
import { countGroups, difficulties, pct, resultOf, type GroupCount } from './helpers/independent-figures.ts';
import { judgedAnalysisCampaign, SHOTS } from './helpers/judged-campaign.ts';

const SPACE = 'SamplesSpace';
const MIN_N = 36;
const { pages, world } = judgedAnalysisCampaign(SPACE, 'Samples', { minN: MIN_N });

const rate = (g: GroupCount) => (g.n ? g.resolved / g.n : -1);
const byName = (a: GroupCount, b: GroupCount) =>
  a.model.localeCompare(b.model) || a.harnessVersion.localeCompare(b.harnessVersion);

describe('small samples', () => {
  it('greys a configuration below the cockpit’s minN as “too few to rank”, gives it no rank and sorts it after the ranked', async () => {
    const groups = countGroups(world.runs, 'tests');
    const ranked = groups.filter((g) => g.n >= MIN_N).sort((a, b) => rate(b) - rate(a) || byName(a, b));
    const unranked = groups.filter((g) => g.n < MIN_N).sort((a, b) => rate(b) - rate(a) || byName(a, b));
    expect(unranked.length).toBeGreaterThan(0);
    expect(ranked.length).toBeGreaterThan(1);
    // Competition ranks: equal rates share one.
    const rankOf = (k: number): number => (k > 0 && rate(ranked[k]!) === rate(ranked[k - 1]!) ? rankOf(k - 1) : k + 1);
    const p = await pages.open();
    const tiles = p.locator('.kpi');
    const expected = [...ranked, ...unranked];
    for (let k = 0; k < expected.length; k++) {
      const g = expected[k]!;
      const tile = tiles.nth(k);
      expect(await tile.locator('.kpi-model').innerText()).toContain(g.model);
      expect(await tile.locator('.kpi-harness').innerText()).toBe(`harness ${g.harnessVersion}`);
      if (k < ranked.length) {
        expect(await tile.getAttribute('data-rank')).toBe(String(rankOf(k)));
        expect((await tile.locator('.kpi-rank').innerText()).trim()).toBe(`#${rankOf(k)}`);
        expect(await tile.locator('.kpi-too-few').count()).toBe(0);
      } else {
        expect(await tile.getAttribute('class')).toContain('too-few');
        expect(await tile.locator('.kpi-rank').count()).toBe(0);
        expect(await tile.locator('.kpi-too-few').innerText()).toBe(`n = ${g.n} — too few to rank`);
        // Greyed, but still shown with its rate and n.
        expect(await tile.locator('.kpi-rate').innerText()).toMatch(new RegExp(`^${pct(g.resolved / g.n)}`));
        expect(await tile.locator('.kpi-rate').evaluate((n) => getComputedStyle(n).color)).not.toBe(
          await tiles
            .first()
            .locator('.kpi-rate')
            .evaluate((n) => getComputedStyle(n).color),
        );
      }
    }
    // The per-model table ranks the same way: its rank column, "—" for the too few.
    const rows = p.locator('#table-models tbody tr');
    const rankCells = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[1]!.textContent));
    expect(rankCells).toEqual(expected.map((_, k) => (k < ranked.length ? `#${rankOf(k)}` : '—')));
    await p.locator('.kpis').screenshot({ path: `${SHOTS}/samples-tiles.png` });
    await p.close();
  });

  it('refuses in Compare a pair with fewer than 10 shared tasks, saying how many there are', async () => {
    const groups = countGroups(world.runs, 'tests').sort(byName);
    const [a, b] = [groups[0]!, groups[1]!];
    const tier = ['hard', 'medium', 'easy'].find((t) => {
      const shared = new Set(
        a.runs.filter((r) => r.tier === t && resultOf(r, 'tests') !== 'outside').map((r) => r.taskId),
      );
      const both = b.runs.filter((r) => r.tier === t && resultOf(r, 'tests') !== 'outside' && shared.has(r.taskId));
      return both.length > 0 && both.length < 10;
    })!;
    expect(tier).toBeDefined();
    const aTasks = new Set(
      a.runs.filter((r) => r.tier === tier && resultOf(r, 'tests') !== 'outside').map((r) => r.taskId),
    );
    const shared = b.runs.filter(
      (r) => r.tier === tier && resultOf(r, 'tests') !== 'outside' && aTasks.has(r.taskId),
    ).length;
    const name = (g: GroupCount) => `${g.model} · ${g.harnessVersion}`;
    const search = new URLSearchParams([
      ['view', 'compare'],
      ['tier', tier],
      ['a', a.model],
      ['a', a.harnessVersion],
      ['b', b.model],
      ['b', b.harnessVersion],
    ]);
    const p = await pages.open(`/?${search}`);
    expect(await p.locator('#compare-sentence').innerText()).toBe(
      `${name(a)} and ${name(b)} share ${shared} ${shared === 1 ? 'task' : 'tasks'} ` +
        `with a result on the hidden tests: too few to compare (Compare needs at least 10).`,
    );
    expect(await p.locator('#compare-table').count()).toBe(0);
    await p.close();
  });

  it('filters by empirical difficulty beside the senders’ tiers, and breaks each rate down by tier, difficulty and wave', async () => {
    const bands = difficulties(world.runs, 'tests');
    const hard = world.runs.filter((r) => bands.get(r.taskId) === 'hard');
    expect(hard.length).toBeGreaterThan(0);
    const p = await pages.open('/?view=runs');
    // The tiers and the difficulty are two groups of the filter bar, side by side.
    expect(await p.locator('[role="group"][aria-label="Tier"] button').count()).toBe(3);
    expect(await p.locator('[role="group"][aria-label="Empirical difficulty"] button').allInnerTexts()).toEqual([
      'easy',
      'medium',
      'hard',
      'unsolved',
    ]);
    await p.locator('[data-difficulty="hard"]').click();
    await p.waitForURL((u) => u.searchParams.getAll('difficulty').join() === 'hard');
    expect(await p.locator('.runs-count').innerText()).toMatch(new RegExp(`^${hard.length} of`));
    const shown = await p
      .locator('.grid-row:not([hidden])')
      .evaluateAll((rows) => rows.map((r) => r.querySelector('[data-column="difficulty"]')!.textContent));
    expect(new Set(shown)).toEqual(new Set(['hard']));
    // The breakdown: the best group's runs per difficulty band, counted on the tests.
    await p.locator('[data-difficulty="hard"]').click();
    await p.locator('#tab-dashboard').click();
    const table = p.locator('#breakdown-table');
    await table.scrollIntoViewIfNeeded();
    const best = p.locator('#table-models tbody tr').first();
    const [model, harness] = [await best.locator('th').textContent(), await best.locator('td').first().textContent()];
    const group = countGroups(world.runs, 'tests').find((g) => g.model === model && g.harnessVersion === harness)!;
    const row = table.locator(`tbody tr[data-model="${model}"][data-harness="${harness}"]`);
    const cells = await row.locator('td').evaluateAll((tds) => tds.map((td) => td.textContent));
    ['easy', 'medium', 'hard', 'unsolved'].forEach((band, k) => {
      const inBand = group.runs.filter((r) => bands.get(r.taskId) === band && resultOf(r, 'tests') !== 'outside');
      const resolved = inBand.filter((r) => resultOf(r, 'tests') === 'resolved').length;
      expect(cells[3 + k]).toBe(`${inBand.length ? pct(resolved / inBand.length) : '–'}n=${inBand.length}`);
    });
    await table.screenshot({ path: `${SHOTS}/samples-breakdown.png` });
    await p.close();
  });
});

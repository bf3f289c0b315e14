// Where the judge and the hidden tests disagree (docs/contract.md §6) in headless Chromium on a demo campaign whose
// stand-in judge disagrees with the tests on purpose now and then: κ per configuration in the per-model
// table (or "—" and why), the runs grid narrowed to the disagreements and marking them, the matrix marking
// their cells, and the 2×2 table's counts leading to exactly their runs. Expected figures are counted in
// the test from export.json (helpers/independent-figures.ts). Screenshots go to test-results/.
import { describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { settled } from './helpers/analysis-page.ts';
import { agreement, byRateThenName, countGroups, kappaOf } from './helpers/independent-figures.ts';
import { judgedAnalysisCampaign, SHOTS } from './helpers/judged-campaign.ts';

const SPACE = 'AgreementSpace';
const { pages, world } = judgedAnalysisCampaign(SPACE, 'Agreement');

const runsCount = async (p: Page) =>
  Number(/^([\d,]+) of/.exec(await p.locator('.runs-count').innerText())![1]!.replace(/,/g, ''));

describe('judge agreement', () => {
  it('shows each configuration’s κ with its interval and n in the per-model table, or “—” and why below n = 10', async () => {
    // The rarest tier leaves some configuration with fewer than 10 runs that have both results.
    const tiers = ['easy', 'medium', 'hard'].map((tier) => ({ tier, runs: world.runs.filter((r) => r.tier === tier) }));
    const rare = tiers.filter((t) => t.runs.length).sort((a, b) => a.runs.length - b.runs.length)[0]!;
    for (const [path, inView] of [
      ['/', world.runs],
      [`/?tier=${rare.tier}`, rare.runs],
    ] as const) {
      const p = await pages.open(path);
      const groups = countGroups([...inView], 'tests').sort(byRateThenName);
      let withheld = 0;
      for (const g of groups) {
        const k = kappaOf(g.runs);
        const row = p.locator('#table-models tbody tr').nth(groups.indexOf(g));
        expect(await row.locator('th').textContent()).toBe(g.model);
        const cell = row.locator('td .kappa-cell');
        const parts = await cell.evaluate((n) => [...n.childNodes].map((c) => c.textContent));
        if (k.n < 10 || k.kappa === null) {
          withheld++;
          expect(parts[0]).toBe('—');
          expect(parts[1]).toBe(
            k.n < 10
              ? `n = ${k.n}: too few runs with both a verdict and a test result (κ needs 10)`
              : 'the judge or the tests said the same thing every time',
          );
        } else
          expect(parts).toEqual([k.kappa.toFixed(2), `${k.ci![0].toFixed(2)} to ${k.ci![1].toFixed(2)}`, `n=${k.n}`]);
      }
      if (path !== '/') expect(withheld).toBeGreaterThan(0);
      else {
        expect(withheld).toBeLessThan(groups.length);
        await p.locator('#table-models').scrollIntoViewIfNeeded();
        await p.locator('#table-models').screenshot({ path: `${SHOTS}/agreement-kappa-table.png` });
      }
      await p.close();
    }
  });

  it('narrows the runs grid to the disagreements (agreement=disagree) and marks each of them', async () => {
    const disagreeing = world.runs.filter((r) => agreement(r) === 'disagree');
    const agreeing = world.runs.filter((r) => agreement(r) === 'agree');
    expect(disagreeing.length).toBeGreaterThan(0);
    const p = await pages.open('/?view=runs');
    await p.locator('[data-agreement="disagree"]').click();
    await p.waitForURL((u) => u.searchParams.get('agreement') === 'disagree');
    expect(await runsCount(p)).toBe(disagreeing.length);
    const rows = p.locator('.grid-row:not([hidden])');
    const marks = await rows.evaluateAll((nodes) =>
      nodes.map((n) => [n.classList.contains('disagrees'), n.querySelector('.grid-cell.disagrees')?.textContent]),
    );
    expect(marks.length).toBeGreaterThan(0);
    for (const mark of marks) expect(mark).toEqual([true, '≠']);
    await p.locator('.runs-main').screenshot({ path: `${SHOTS}/agreement-runs.png` });
    // The other way, and off again: the grid holds every run, the disagreeing ones still marked.
    await p.locator('[data-agreement="agree"]').click();
    await p.waitForURL((u) => u.searchParams.get('agreement') === 'agree');
    expect(await runsCount(p)).toBe(agreeing.length);
    expect(await p.locator('.grid-row:not([hidden]).disagrees').count()).toBe(0);
    await p.locator('[data-agreement="agree"]').click();
    await p.waitForURL((u) => !u.searchParams.has('agreement'));
    expect(await runsCount(p)).toBe(world.runs.length);
    // The export carries the filter.
    await p.locator('[data-agreement="disagree"]').click();
    const href = new URL((await p.locator('#export-json').getAttribute('href'))!, world.cockpit!.local.url);
    expect(href.searchParams.get('agreement')).toBe('disagree');
    await p.close();
  });

  it('leads from each count of the 2×2 table to exactly its runs', async () => {
    const p = await pages.open();
    const counted = { 'resolved-pass': 0, 'resolved-fail': 0, 'other-pass': 0, 'other-fail': 0 };
    for (const r of world.runs) {
      if (agreement(r) === null) continue;
      const judged = r.judgeVerdict === 'resolved' ? 'resolved' : 'other';
      counted[`${judged}-${r.hiddenTestStatus as 'pass' | 'fail'}`]++;
    }
    for (const [cell, expected] of Object.entries(counted)) {
      expect(Number((await p.locator(`#kappa [data-cell="${cell}"]`).textContent())!.replace(/,/g, ''))).toBe(expected);
    }
    await p.locator('#kappa [data-cell="other-pass"]').click();
    await p.waitForURL((u) => u.searchParams.get('view') === 'runs');
    expect(new URL(p.url()).searchParams.getAll('verdict').sort()).toEqual(['no_change', 'partial', 'wrong']);
    expect(new URL(p.url()).searchParams.getAll('tests')).toEqual(['pass']);
    expect(await runsCount(p)).toBe(counted['other-pass']);
    await p.close();
  });

  it('marks the matrix cells of disagreeing runs with a dark band', async () => {
    const p = await pages.open('/', { width: 1440, height: 900 });
    await p.locator('#chart-matrix').scrollIntoViewIfNeeded();
    await settled(p);
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const groups = countGroups(world.runs, 'tests').sort(byRateThenName);
    // Along each row's band line, one dark block per disagreeing run of that configuration (every task fits).
    const blocks = await p.locator('#chart-matrix canvas').evaluate((canvas: HTMLCanvasElement, rows: number) => {
      const ratio = canvas.width / canvas.clientWidth;
      const ctx = canvas.getContext('2d')!;
      const x0 = Math.round(212 * ratio);
      return Array.from({ length: rows }, (_, r) => {
        const y = Math.round((18 + r * 14 + 1) * ratio);
        const line = ctx.getImageData(x0, y, canvas.width - x0, 1).data;
        let count = 0;
        let inside = false;
        for (let i = 0; i < line.length; i += 4) {
          const dark = line[i] === 0x1d && line[i + 1] === 0x1f && line[i + 2] === 0x23;
          if (dark && !inside) count++;
          inside = dark;
        }
        return count;
      });
    }, groups.length);
    expect(blocks).toEqual(groups.map((g) => g.runs.filter((r) => agreement(r) === 'disagree').length));
    expect(blocks.reduce((s, n) => s + n, 0)).toBeGreaterThan(0);
    expect(await p.locator('#chart-matrix .legend').innerText()).toContain('judge and tests disagree');
    await p.locator('#chart-matrix').screenshot({ path: `${SHOTS}/agreement-matrix.png` });
    await p.close();
  });
});

// The sentence a reader can quote for a paired comparison (docs/contract.md §6 "A sentence to quote"), one template:
// "On 412 tasks both ran (outcome: hidden tests), A resolved 201 (48.8%) and B 173 (42.0%): a difference of
// +6.8 points (95% CI +2.1 to +11.4), McNemar p = 0.0041 (Holm-adjusted over 6 pairs: 0.025)." The Holm clause
// is there when the pair is one of several compared at once. Where samples repeat, the per-task means, the
// clustered interval and the sign-flip p.
import { OUTCOME_LABELS, type ResolveOutcome } from './outcome.ts';
import { MIN_SHARED_TASKS } from './ranking.ts';
import type { PairFigures } from './compare-groups.ts';
import type { PairedComparison } from './statistics.ts';
import type { CampaignDeclaration } from './contract.ts';

/** The thresholds a reader holds p against: its text is never rounded across one. */
const P_THRESHOLDS = [0.05, 0.01, 0.001];

/**
 * A p value as the page writes it: two significant digits ("0.045", "0.0041", "0.50"), "< 0.001" below 0.001,
 * and a digit more wherever two would round across 0.05, 0.01 or 0.001 (0.0496 is "0.0496", never "0.050").
 */
export function pText(p: number): string {
  if (p < 0.001) return '< 0.001';
  for (let digits = 2; ; digits++) {
    const text = p.toPrecision(digits);
    if (P_THRESHOLDS.every((t) => p < t === Number(text) < t) || digits >= 17) return text;
  }
}
/** "p = 0.0041", "p < 0.001". */
const pIs = (p: number) => (p < 0.001 ? 'p < 0.001' : `p = ${pText(p)}`);
/** Points with their sign, one decimal: "+6.8", "−2.1", "±0.0". */
const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${(Math.abs(x) * 100).toFixed(1)}`;
const percent = (x: number) => `${(x * 100).toFixed(1)}%`;
const share = (k: number, n: number) => percent(k / n);
const tasks = (n: number) => `${n} ${n === 1 ? 'task' : 'tasks'}`;

/** The pair's adjusted p among the pairs compared at once. */
export interface HolmClause {
  pairs: number;
  holmP: number;
  /** The pair's own p is the least a Monte Carlo p can be (pAtFloor), so the adjusted p is a bound above. */
  bound: boolean;
}

/** An adjusted p as the page writes it: a bound above rounded up ("≤ 0.023"), else pText. */
export const holmText = ({ holmP, bound }: Pick<HolmClause, 'holmP' | 'bound'>): string =>
  bound
    ? `≤ ${(Math.ceil(holmP / 10 ** (Math.floor(Math.log10(holmP)) - 1)) * 10 ** (Math.floor(Math.log10(holmP)) - 1)).toPrecision(2)}`
    : pText(holmP);

export function describeComparison(
  a: string,
  b: string,
  c: PairedComparison & Partial<PairFigures> & { outcome: ResolveOutcome },
  holm: HolmClause | null = null,
): string {
  const outcome = OUTCOME_LABELS[c.outcome];
  if (c.pairs === 0) return `${a} and ${b} have no task with a result on the ${outcome} in common.`;
  const p = c.mcnemarP ?? c.permutationP ?? null;
  if (c.pairs < MIN_SHARED_TASKS || c.difference === null || c.ci === null || p === null)
    return `${a} and ${b} share ${tasks(c.pairs)} with a result on the ${outcome}: too few to compare (Compare needs at least ${MIN_SHARED_TASKS}).`;
  const [lo, hi] = c.ci;
  const adjusted = holm && holm.pairs > 1 ? ` (Holm-adjusted over ${holm.pairs} pairs: ${holmText(holm)})` : '';
  if (c.method === 'task-means') {
    const over = c.cluster === 'repo' ? `clustered by repository, ${c.clusters} of them` : 'clustered by task';
    return (
      `On ${tasks(c.pairs)} both ran (outcome: ${outcome}, repeated samples), ${a} resolved ${percent(c.meanA!)} ` +
      `of a task's samples on average and ${b} ${percent(c.meanB!)}: a difference of ${signed(c.difference)} points ` +
      `(95% CI ${signed(lo)} to ${signed(hi)}, ${over}), sign-flip ${pIs(p)}${adjusted}.`
    );
  }
  const resolvedA = c.bothResolved + c.aOnly;
  const resolvedB = c.bothResolved + c.bOnly;
  return (
    `On ${tasks(c.pairs)} both ran (outcome: ${outcome}), ${a} resolved ${resolvedA} (${share(resolvedA, c.pairs)}) ` +
    `and ${b} ${resolvedB} (${share(resolvedB, c.pairs)}): a difference of ${signed(c.difference)} points ` +
    `(95% CI ${signed(lo)} to ${signed(hi)}), McNemar ${pIs(p)}${adjusted}.`
  );
}

/**
 * What the comparison's tasks are, after its sentence: how many are in view, of which benchmark and how chosen
 * (the cockpit's `campaign`), and the harness difference when the two ran different harnesses.
 */
export function sampleSentence(
  campaign: CampaignDeclaration | null,
  tasksInView: number,
  harnesses: [string, string],
): string {
  const population = campaign
    ? `The tasks: ${tasksInView} of the ${campaign.population.size} of ${campaign.population.name}` +
      `${campaign.sample ? `, ${campaign.sample}` : ''}.`
    : `The tasks: ${tasks(tasksInView)} in view; the cockpit declares no population they were drawn from.`;
  const [a, b] = harnesses;
  return a === b
    ? population
    : `${population} The two ran different harnesses (${a} and ${b}): the difference mixes model and harness.`;
}

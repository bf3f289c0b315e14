// How Cohen's κ reads on the page: its value, interval and n, or why there is none.
import type { Agreement } from '#analytics/statistics.ts';
import { count } from '../widgets/format.ts';

export function kappaText(k: Agreement): string {
  if (k.kappa === null || !k.ci)
    return `κ unknown (${k.n ? 'the judge or the tests said the same thing every time' : 'n=0'})`;
  return `κ = ${k.kappa.toFixed(2)} (95% CI ${k.ci[0].toFixed(2)} to ${k.ci[1].toFixed(2)}, n=${count(k.n)})`;
}

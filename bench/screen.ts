// The judge's screen (core/judge/verdict-checks.ts `screen`: five readings of the text, each two ways, against
// every rule of shared/analytics/flag-rules.ts) on 1 MiB of text of several kinds, honest and hostile, beside its
// floor: the same text read once (`normalise`) and searched once by a pattern that scans it in one pass. The
// screen runs before the model is called, within the judge's 120 s; a text it takes long on makes a run
// unjudgeable. Medians of --rounds.
//   npm run bench:screen [-- --rounds 5 --kib 1024]
import { parseArgs } from 'node:util';
import { normalise, screen } from '#core/judge/verdict-checks.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, kib: { type: 'string', default: '1024' } },
});
const ROUNDS = Number(values.rounds);
const BYTES = Number(values.kib) * 1024;

const filled = (line: string) => line.repeat(Math.max(1, Math.floor(BYTES / Buffer.byteLength(line))));
const TEXTS: Record<string, string> = {
  'code lines': filled('+  const value = compute(input, options); // keep the last result\n'),
  'rule lines "+ ----"': filled('+ ----\n'),
  'lines of ". " × 40': filled(`+${'. '.repeat(40)}\n`),
  'CJK comment lines': filled('+ // 中文注释，说明这一行\n'),
  'accents, emoji, bidi': filled('+ // résumé naïve café 🚀 \u202eabc\u202c done\n'),
  'zero-width in words': filled('+ // ig\u200bnore\u200bthe pre\u200bvious\u200bval\u200bue\u200b\u200b\u200bnow\n'),
  // One run, no line break: a pattern that rescans a run from each start in it is quadratic here.
  'one run of zero-width': '\u200b'.repeat(BYTES / 3),
  'one run of emoji': '🚀'.repeat(BYTES / 4),
  'one run of digits': '1'.repeat(BYTES),
  'markup left open': filled('<!-- <a href=x ig**no &#1 -\n'),
  'one name run together': `a${'Bc'.repeat(BYTES / 2 - 1)}`,
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const timed = (work: () => unknown) => {
  const ms: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    work();
    ms.push(performance.now() - t0);
  }
  return median(ms);
};

console.log(`screen() on ${values.kib} KiB, medians of ${ROUNDS}:`);
console.log(`${''.padEnd(24)}${'screen'.padStart(10)}${'floor'.padStart(10)}${'× floor'.padStart(9)}`);
for (const [name, text] of Object.entries(TEXTS)) {
  screen(text);
  const measured = timed(() => screen(text));
  const floor = timed(() => /resolved/i.test(normalise(text)));
  console.log(
    `${name.padEnd(24)}${`${Math.round(measured)} ms`.padStart(10)}${`${Math.round(floor)} ms`.padStart(10)}` +
      `${(measured / floor).toFixed(1).padStart(8)}×`,
  );
}

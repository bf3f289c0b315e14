// Fixed-seed randomness, the same sequence for the same seed in Node and the browser: the demo campaigns and the
// resampling statistics (bootstrap intervals, sign-flip permutations) use it, so a figure computed twice is the
// same figure.

/** mulberry32: small, fast, and the same sequence for the same seed everywhere; uniform in [0, 1). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Binomial draws (see binomialSampler). */
export interface BinomialSampler {
  (m: number, q: number): number;
  /**
   * Draws for one q: the same draws as `(m, q)` from the same sequence, with q's logarithms taken once, so a
   * bootstrap drawing with the same q thousands of times takes none.
   */
  withProbability(q: number): (m: number) => number;
}

/**
 * Binomial(m, q) draws, exact, by inversion from the mode outward (Kemp 1986, "A modal method for generating
 * binomial variables", Commun Stat Theory Methods 15:805): the mass is spent from the mode alternately down and
 * up, so a draw costs about as many steps as its distance from the mode (√(mq(1−q)) on average), not m. The
 * log-factorials are tabled once for every m up to `largest`.
 */
export function binomialSampler(largest: number, random: () => number): BinomialSampler {
  const logFactorial = new Float64Array(largest + 1);
  for (let k = 2; k <= largest; k++) logFactorial[k] = logFactorial[k - 1]! + Math.log(k);
  const modeOf = (m: number, q: number) => Math.min(m, Math.floor((m + 1) * q));
  const massAtMode = (m: number, mode: number, logQ: number, logNotQ: number) =>
    Math.exp(logFactorial[m]! - logFactorial[mode]! - logFactorial[m - mode]! + mode * logQ + (m - mode) * logNotQ);
  const walk = (m: number, odds: number, mode: number, atMode: number) => {
    let u = random() - atMode;
    if (u <= 0) return mode;
    let down = mode;
    let up = mode;
    let pDown = atMode;
    let pUp = atMode;
    while (down > 0 || up < m) {
      // P(k − 1) = P(k) · k / ((m − k + 1) · odds); P(k + 1) = P(k) · (m − k) · odds / (k + 1).
      if (down > 0) {
        pDown *= down / ((m - down + 1) * odds);
        down--;
        if ((u -= pDown) <= 0) return down;
      }
      if (up < m) {
        pUp *= ((m - up) * odds) / (up + 1);
        up++;
        if ((u -= pUp) <= 0) return up;
      }
    }
    return mode; // the rounding left over once every outcome was spent
  };
  const draw: BinomialSampler = Object.assign(
    (m: number, q: number) => {
      if (m <= 0 || q <= 0) return 0;
      if (q >= 1) return m;
      const mode = modeOf(m, q);
      return walk(m, q / (1 - q), mode, massAtMode(m, mode, Math.log(q), Math.log1p(-q)));
    },
    {
      withProbability(q: number) {
        if (q <= 0) return () => 0;
        if (q >= 1) return (m: number) => Math.max(0, m);
        const odds = q / (1 - q);
        // The logarithms once per q; nothing per m, as a bootstrap over thousands of clusters has a q for each, and
        // a table over every m for each would grow with the square of the clusters.
        const [logQ, logNotQ] = [Math.log(q), Math.log1p(-q)];
        return (m: number) => {
          if (m <= 0) return 0;
          const mode = modeOf(m, q);
          return walk(m, odds, mode, massAtMode(m, mode, logQ, logNotQ));
        };
      },
    },
  );
  return draw;
}

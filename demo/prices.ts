// ILLUSTRATIVE prices for the demo campaign, USD per million tokens, so its cost cards have run costs to show:
// the providers' list prices of late 2025 for the models they name, not what any demo run cost (its token
// counts are generated). Kimi, GLM-4.5 and GPT OSS are left unpriced on purpose: their run costs read
// "unknown", as an unpriced model's do. The stand-in judge is priced as a Sonnet-class model.
import type { ModelPrice } from '#schema/config.ts';

export const DEMO_RUNNER_PRICES: Record<string, ModelPrice> = {
  'Claude 4.5 Sonnet': { inputPerMTok: 3, outputPerMTok: 15 },
  'Claude 4 Sonnet': { inputPerMTok: 3, outputPerMTok: 15 },
  'Claude Sonnet 4': { inputPerMTok: 3, outputPerMTok: 15 },
  'Claude 4.5 Haiku': { inputPerMTok: 1, outputPerMTok: 5 },
  'Claude Opus 4.1': { inputPerMTok: 15, outputPerMTok: 75 },
  'GPT-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'GPT-5 High': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'GPT-5 Codex': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'GPT-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'Gemini 2.5 Pro Preview': { inputPerMTok: 1.25, outputPerMTok: 10 },
};

export const DEMO_JUDGE_PRICE: ModelPrice = {
  inputPerMTok: 3,
  outputPerMTok: 15,
  cacheWritePerMTok: 3.75,
  cacheReadPerMTok: 0.3,
};

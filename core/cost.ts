// What a model call cost (docs/contract.md §5–§6): tokens times the configured price, per kind of token. Unknown stays
// unknown: without a price, or without a count the price needs, the cost is null, never 0, and a sum with an
// unknown part is unknown.
import type { ModelPrice } from '#schema/config.ts';
import type { TokenUsage } from './ports.ts';

/** A Message Batch's tokens cost half the model's price (Anthropic's batch pricing), cache writes and reads included. */
export const BATCH_PRICE_FACTOR = 0.5;

export function callCostUsd(usage: TokenUsage, price: ModelPrice | undefined): number | null {
  if (!price || usage.inputTokens === null || usage.outputTokens === null) return null;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const cacheRead = usage.cacheReadTokens ?? 0;
  if ((cacheWrite && price.cacheWritePerMTok === undefined) || (cacheRead && price.cacheReadPerMTok === undefined))
    return null;
  const perToken = (tokens: number, perMTok = 0) => (tokens * perMTok) / 1_000_000;
  return (
    perToken(usage.inputTokens, price.inputPerMTok) +
    perToken(usage.outputTokens, price.outputPerMTok) +
    perToken(cacheWrite, price.cacheWritePerMTok) +
    perToken(cacheRead, price.cacheReadPerMTok)
  );
}

/** The sum, or null as soon as one part is unknown. An empty sum is 0. */
export const sumCosts = (costs: (number | null)[]): number | null =>
  costs.reduce<number | null>((sum, cost) => (sum === null || cost === null ? null : sum + cost), 0);

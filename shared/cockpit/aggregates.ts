// Every figure the cockpit shows, computed from a RunTable and a selection of its rows; the rules of
// docs/contract.md §2 and §6. One entry point over the modules that each compute one kind of figure.
export { medianOf, medianOfRows, type MedianFigure } from './quantiles.ts';
export * from './run-selection.ts';
export * from './rate-figures.ts';
export * from './run-grouping.ts';
export * from './run-counts.ts';
export * from './group-figures.ts';
export * from './calibration.ts';
export * from './original-fix-comparison.ts';
export * from './scatter-layers.ts';
export * from './task-order.ts';

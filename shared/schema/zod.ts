// Every schema is written with zod's functional build (zod/mini): the same validation and the same issues as
// the chained API, at a fraction of its size and construction time in each function bundle (bench/bundles.ts).
// The functional build ships without messages; English is set here, once, before any schema can parse.
// Schema modules import zod through this module (`import * as z from './zod.ts'`), never `zod/mini` itself.
import { config } from 'zod/mini';
import { en } from 'zod/v4/locales';

config(en());

export * from 'zod/mini';

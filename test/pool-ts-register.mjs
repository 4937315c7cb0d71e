// `--import` entry for pool test workers: registers ./pool-ts-hooks.mjs.
import { register } from 'node:module';
register('./pool-ts-hooks.mjs', import.meta.url);

/** Types of site/links.mjs, for the tests (the module itself is checked by site/tsconfig.json). */
export interface Broken {
  from: string;
  link: string;
  why: string;
}
export interface Report {
  files: number;
  checked: number;
  external: number;
  broken: Broken[];
}
export function checkSite(dir: string): Report;
export function checkMarkdown(root?: string): Report;
export function describe(what: string, report: Report): string;

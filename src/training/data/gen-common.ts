/**
 * Shared vocabulary of the counterfactual generators: invented names and companies, field-name
 * styles, number and date formats, and the comparison words whose truth the generators compute.
 * Everything a generated gold depends on is computed here from the value as displayed.
 * @module
 */
import type { JsonObject } from '../../types.js';
import { pick, type Random } from './util.js';

export const PEOPLE = (
  'Ana Ben Chidi Dana Elif Farid Greta Hiro Ines Jonas Kofi Lena Mateo Nadia Omar Priya Quinn Rosa Sven Tariq ' +
  'Uma Viktor Wen Ximena Yusuf Zara Aiko Bruno Carmen Diego Emeka Fiona Goran Hana Ivan Jia Kamal Leila Marek Noor'
).split(' ');
export const SURNAMES = 'Okafor Lindqvist Moreau Tanaka Haddad Novak Costa Brennan Petrov Silva Osei Kowalski Nguyen Fischer Romero Adeyemi'.split(' ');
export const COMPANIES = 'Northwind Traders|Bluepeak Labs|Harbor & Finch|Kestrel Logistics|Orchid Health|Quarry Works|Lumen Retail|Tidewater Bank|Sablewood Studio|Ironbark Systems'.split('|');

export function person(random: Random): string {
  return `${pick(PEOPLE, random)} ${pick(SURNAMES, random)}`;
}

export function recordId(prefix: string, random: Random): string {
  return `${prefix}-${1000 + Math.floor(random() * 90000)}`;
}

/** A field name in one of four styles: `order_total`, `orderTotal`, `OrderTotal`, `order total`. */
export function fieldName(words: string, random: Random): string {
  const parts = words.split(' ');
  const style = random();
  if (style < 0.5) return parts.join('_');
  if (style < 0.75) return parts[0]! + parts.slice(1).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
  if (style < 0.85) return parts.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
  return parts.join(' ');
}

/** Thousands separators and a fixed number of decimals. */
export function formatNumber(v: number, decimals: number): string {
  return v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

export type Comparator = 'gt' | 'ge' | 'lt' | 'le';

export function compare(v: number, c: Comparator, t: number): boolean {
  return c === 'gt' ? v > t : c === 'ge' ? v >= t : c === 'lt' ? v < t : v <= t;
}

/** Words for a comparator (each exact: "at least" includes the threshold, "over" does not). */
export const COMPARATOR_WORDS: Record<Comparator, readonly string[]> = {
  gt: ['more than', 'over', 'above', 'greater than', 'higher than'],
  ge: ['at least', 'no less than', 'equal to or more than'],
  lt: ['less than', 'under', 'below', 'lower than'],
  le: ['at most', 'no more than', 'equal to or less than'],
};

const MONTHS = 'January February March April May June July August September October November December'.split(' ');

/** A date (UTC midnight) in one of five unambiguous formats. */
export function formatDate(d: Date, style: number): string {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const day = d.getUTCDate();
  switch (style % 5) {
    case 0:
      return d.toISOString().slice(0, 10);
    case 1:
      return `${day} ${MONTHS[m]} ${y}`;
    case 2:
      return `${MONTHS[m]} ${day}, ${y}`;
    case 3:
      return `${MONTHS[m]!.slice(0, 3)} ${day}, ${y}`;
    default:
      return `${day} ${MONTHS[m]!.slice(0, 3)} ${y}`;
  }
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * 86_400_000);
}

/** A random date between 2019 and 2027. */
export function randomDate(random: Random): Date {
  return new Date(Date.UTC(2019 + Math.floor(random() * 9), Math.floor(random() * 12), 1 + Math.floor(random() * 28)));
}

/** A backtick reference to a field (structured questions name fields this way). */
export const ref = (field: string) => `\`${field}\``;

/** Adds 1-3 unrelated fields to a record, so that the asked field is not the only one. */
export function withDistractors(record: JsonObject, random: Random): JsonObject {
  const extra: [string, JsonObject[string]][] = [
    ['id', recordId(pick(['REC', 'ID', 'X', 'DOC'], random), random)],
    ['created', formatDate(randomDate(random), 0)],
    ['owner', person(random)],
    ['region', pick(['EMEA', 'APAC', 'NA', 'LATAM'], random)],
    ['notes', pick(['', 'follow up next week', 'customer called twice', 'see attached'], random)],
  ];
  const out: JsonObject = {};
  const chosen = extra.filter(() => random() < 0.5).slice(0, 3);
  const before = chosen.filter(() => random() < 0.5);
  for (const [k, v] of before) out[k] = v;
  Object.assign(out, record);
  for (const [k, v] of chosen) if (!(k in out)) out[k] = v;
  return out;
}

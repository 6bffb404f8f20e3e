// Text and date formatting of the seed records.

export const DAY = 86_400_000;
export const HOUR = 3_600_000;
const SECONDS_PER_DAY = 86_400;

const FOLD: Record<string, string> = { ł: 'l', ø: 'o', æ: 'ae', ß: 'ss', đ: 'd', ı: 'i' };
/** Lowercase ASCII letters and digits only, for e-mail local parts: 'Łukasz' -> 'lukasz'. */
export const ascii = (s: string): string =>
  s
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[łøæßđı]/g, (c) => FOLD[c] ?? '')
    .replace(/[^a-z0-9]+/g, '');

// Date formatting is the hot path at millions of records: days are formatted once and cached (a data set
// spans a few years; the bound only keeps an unusual `now` from growing the cache without end).
const DAY_CACHE_LIMIT = 100_000;
const DAYS = new Map<number, string>();
const TWO_DIGITS = Array.from({ length: 60 }, (_, k) => String(k).padStart(2, '0'));
const dayOf = (day: number): string => {
  let v = DAYS.get(day);
  if (v === undefined) {
    v = new Date(day * DAY).toISOString().slice(0, 10);
    if (DAYS.size < DAY_CACHE_LIMIT) DAYS.set(day, v);
  }
  return v;
};
/** YYYY-MM-DD of an epoch millisecond (UTC). */
export const date = (ms: number): string => dayOf(Math.floor(ms / DAY));
/** ISO 8601 instant of an epoch millisecond, whole seconds, as Date.toISOString writes it. */
export const iso = (ms: number): string => {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / SECONDS_PER_DAY);
  const r = s - d * SECONDS_PER_DAY;
  const m = Math.floor(r / 60);
  return `${dayOf(d)}T${TWO_DIGITS[Math.floor(m / 60)]}:${TWO_DIGITS[m % 60]}:${TWO_DIGITS[r % 60]}.000Z`;
};
/** Replaces each `{name}` of a template by its value. */
export const fill = (template: string, values: Record<string, string | number>): string =>
  template.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));
/** The k-th name of a cycled list: 'Payroll', ..., then 'Payroll 2'. */
export const cycled = (arr: readonly string[], k: number): string =>
  k < arr.length ? (arr[k] as string) : `${arr[k % arr.length]} ${Math.floor(k / arr.length) + 1}`;

// A page's rows as PostgreSQL sends them on a server: each row's text columns packed into one text (P240).
// The driver decodes every value it receives into a JS string, one call per value: for a 50-record page of 19
// fields that is about a thousand calls, the largest part of a list page's decoding. `concat_ws` joins a row's
// columns for little more than PostgreSQL saves in sending them one by one, so the driver decodes one value
// per row, and Node cuts it into the same strings (slices of the row's text) that the columns would have given.
//
// The packing is exact, not probable. Only a stored string can hold the separator or the null mark (JSON,
// numbers and instants as PostgreSQL writes them hold no control character). A string holding the separator
// makes the row's count of pieces wrong; a string equal to the null mark makes the count of marks among the
// strings exceed what `num_nulls` counted. Either sends the page back to the plain statement (one text column
// per field), so no value can pass for another or for null; only a workspace whose data holds these control
// characters pays the second statement.
//
// The stored strings come first in the packed text, so one test of that stretch tells whether any of them holds
// a character JSON escapes (P244), instead of one test per string.

const SEPARATOR = '\x1f';
const NULL_MARK_CODE = 0x1e;

/**
 * A character JSON escapes (a quote, a backslash, a control character other than the two of the packing), or
 * the null mark beside anything but a separator (so inside a string, not a null). No surrogate: text decoded
 * from PostgreSQL's UTF-8 has none alone, and JSON.stringify writes a pair as it is.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are exactly what JSON escapes.
const ESCAPED_IN_STRINGS = /["\\\u0000-\u001d]|[^\u001f]\u001e|\u001e[^\u001f]/;

/** How a row's cells are packed: made once per page shape, not per request. */
export interface Packing {
  /** By position in the packed text, the cell's index: the stored strings first. */
  order: readonly number[];
  /** How many stored strings lead the packed text. */
  stringCount: number;
  /**
   * The select list of the packed form: the row's cells joined (a null as the mark), the stored strings first,
   * and the number of nulls among those strings.
   */
  select: string;
}

export function packing(cells: readonly string[], strings: readonly number[]): Packing {
  const order = [...strings, ...Array.from(cells.keys()).filter((i) => !strings.includes(i))];
  const values = order.map((i) => `coalesce(${cells[i]}, E'\\x1e')`);
  const nulls = strings.length === 0 ? '0' : `num_nulls(${strings.map((i) => cells[i]).join(', ')})`;
  return {
    order,
    stringCount: strings.length,
    select: `concat_ws(E'\\x1f', ${values.join(', ')}), ${nulls}`,
  };
}

export interface UnpackedRows {
  /** Each row's cells in the order of the plain statement (a null where the column was null). */
  rows: (string | null)[][];
  /** By row: none of its stored strings holds a character JSON escapes. */
  plain: boolean[];
}

/**
 * The cells of each packed row, or undefined when some row's text cannot be cut back into exactly its `width`
 * columns and nulls: then the page must be read with one column per field.
 */
export function unpackRows(packed: readonly unknown[][], how: Packing): UnpackedRows | undefined {
  const { order, stringCount } = how;
  const width = order.length;
  const rows: (string | null)[][] = new Array(packed.length);
  const plain: boolean[] = new Array(packed.length);
  for (let r = 0; r < packed.length; r++) {
    const [text, nulls] = packed[r] as [string, number];
    const cells: (string | null)[] = new Array(width);
    let from = 0;
    let marks = 0;
    let stringsEnd = 0;
    for (let k = 0; k < width; k++) {
      // Cut by indexOf and slice: half the time of split() on a page's rows.
      const end = text.indexOf(SEPARATOR, from);
      const last = k === width - 1;
      if (end === -1 ? !last : last) return undefined;
      const to = end === -1 ? text.length : end;
      const isNull = to - from === 1 && text.charCodeAt(from) === NULL_MARK_CODE;
      cells[order[k] as number] = isNull ? null : text.slice(from, to);
      if (k < stringCount) {
        if (isNull) marks++;
        stringsEnd = to;
      }
      from = to + 1;
    }
    if (marks !== nulls) return undefined;
    rows[r] = cells;
    plain[r] = !ESCAPED_IN_STRINGS.test(text.slice(0, stringsEnd));
  }
  return { rows, plain };
}

// A page's rows as PostgreSQL sends them on a server: each row's text columns packed into one text (P240).
// The driver decodes every value it receives into a JS string, one call per value: for a 50-record page of 19
// fields that is about a thousand calls, the largest part of a list page's decoding. `concat_ws` joins a row's
// columns at no measurable cost to PostgreSQL, so the driver decodes one value per row, and Node cuts it into
// the same strings (slices of the row's text) that the columns would have given.
//
// The packing is exact, not probable. Only a stored string can hold the separator or the null mark (JSON,
// numbers and instants as PostgreSQL writes them hold no control character). A string holding the separator
// makes the row's count of pieces wrong; a string equal to the null mark makes the count of marks among the
// strings exceed what `num_nulls` counted. Either sends the page back to the plain statement (one text column
// per field), so no value can pass for another or for null; only a workspace whose data holds these control
// characters pays the second statement.

const SEPARATOR = '\x1f';
const NULL_MARK_CODE = 0x1e;

/**
 * The select list of the packed form of `cells`: the row's cells joined (a null as the mark), and the number of
 * nulls among the cells at `strings`.
 */
export function packedSelect(cells: readonly string[], strings: readonly number[]): string {
  const joined = cells.map((sql) => `coalesce(${sql}, E'\\x1e')`).join(', ');
  const nulls = strings.length === 0 ? '0' : `num_nulls(${strings.map((i) => cells[i]).join(', ')})`;
  return `concat_ws(E'\\x1f', ${joined}), ${nulls}`;
}

/**
 * The cells of each packed row (a null where the column was null), or undefined when some row's text cannot be
 * cut back into exactly its `width` columns and nulls: then the page must be read with one column per field.
 */
export function unpackRows(
  rows: readonly unknown[][],
  width: number,
  strings: readonly number[],
): (string | null)[][] | undefined {
  const unpacked: (string | null)[][] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const [text, nulls] = rows[r] as [string, number];
    const cells: (string | null)[] = new Array(width);
    let from = 0;
    for (let i = 0; i < width; i++) {
      // Cut by indexOf and slice: half the time of split() on a page's rows.
      const end = text.indexOf(SEPARATOR, from);
      const last = i === width - 1;
      if (end === -1 ? !last : last) return undefined;
      const to = end === -1 ? text.length : end;
      cells[i] = to - from === 1 && text.charCodeAt(from) === NULL_MARK_CODE ? null : text.slice(from, to);
      from = to + 1;
    }
    let marks = 0;
    for (const i of strings) if (cells[i] === null) marks++;
    if (marks !== nulls) return undefined;
    unpacked[r] = cells;
  }
  return unpacked;
}

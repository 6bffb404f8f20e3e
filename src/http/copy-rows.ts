// The rows of a COPY in PostgreSQL's binary format, cut from the chunks its stream gives (an export, P249). In
// that format every value comes with its length, so no byte of it is ever escaped or quoted, whatever it holds,
// and a text value's bytes are its UTF-8. The format: an 11-byte signature, a 32-bit flags field and a 32-bit
// header extension length (then that many bytes); each row a 16-bit count of values, each value a 32-bit
// length (-1 for null) and its bytes; a count of -1 ends the data. All integers are big-endian. Values are
// taken as byte strings (below), so only a text column's bytes, never a binary integer, may be read as one.

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER_BYTES = SIGNATURE.length + 8;

class CopyFormatError extends Error {}

/**
 * A reader of one COPY's output: given each chunk in turn, answers the rows it completes, keeping a row cut by
 * the chunk's end for the next one. Each value is a string of its bytes, one character per byte (latin1), or
 * null: a chunk is decoded once, without the cost of UTF-8, and JSON's escaping of such a string leaves every
 * byte of 0x80 and above as it is (only `"`, `\\` and controls, all ASCII, are escaped), so text written from
 * these values goes back to the same UTF-8 bytes with Buffer.from(text, 'latin1').
 */
export function binaryCopyRows(): (chunk: Buffer) => (string | null)[][] {
  let rest: Buffer | null = null;
  let headerRead = false;
  return (chunk) => {
    const data = rest ? Buffer.concat([rest, chunk]) : chunk;
    let at = 0;
    if (!headerRead) {
      if (data.length < HEADER_BYTES) {
        rest = data;
        return [];
      }
      if (!data.subarray(0, SIGNATURE.length).equals(SIGNATURE))
        throw new CopyFormatError('not the output of a binary COPY');
      const extension = data.readUInt32BE(SIGNATURE.length + 4);
      if (data.length < HEADER_BYTES + extension) {
        rest = data;
        return [];
      }
      at = HEADER_BYTES + extension;
      headerRead = true;
    }
    const rows: (string | null)[][] = [];
    const text = data.toString('latin1');
    for (;;) {
      if (data.length - at < 2) break;
      const count = data.readInt16BE(at);
      if (count === -1) {
        at = data.length;
        break;
      }
      const row: (string | null)[] = new Array(count);
      let next = at + 2;
      let whole = true;
      for (let i = 0; i < count; i++) {
        if (data.length - next < 4) {
          whole = false;
          break;
        }
        const length = data.readInt32BE(next);
        next += 4;
        if (length === -1) {
          row[i] = null;
          continue;
        }
        if (data.length - next < length) {
          whole = false;
          break;
        }
        row[i] = text.slice(next, next + length);
        next += length;
      }
      if (!whole) break;
      rows.push(row);
      at = next;
    }
    rest = at < data.length ? data.subarray(at) : null;
    return rows;
  };
}

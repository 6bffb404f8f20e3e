// The text of the string literals of a TypeScript source (quoted strings and the literal parts of template
// strings), without its comments: what the program can show a user, unlike what it says to its readers. A
// small scanner, enough for this code base: a `/` opens a regular expression where an expression may start.

/** A citation of a decision or of the specification: `decision 40`, `decisions 19, 20`, `decision P69`,
 * `(P83)`, `P101`, a specification file's name. What users read has none (P123). */
export const CITATION =
  /\bdecisions? P?\d+|\(P\d+\)|\bP\d{2,3}\b|\b(?:risk-data-api|management-api|resources|decisions)\.md\b/;

export interface StringLiteral {
  line: number;
  text: string;
}

/** Characters after which a `/` starts a regular expression rather than a division. */
const BEFORE_REGEX = new Set([...'(,=:[!&|?{};+-*%<>~^']);
const KEYWORDS_BEFORE_REGEX = /\b(?:return|typeof|case|in|of|void|throw|else|do|await|yield)$/;

export function stringLiterals(source: string): StringLiteral[] {
  const found: StringLiteral[] = [];
  let i = 0;
  let line = 1;
  const lineAt = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (source[k] === '\n') line++;
  };
  /** The last character that is not blank or part of a comment, for the regular expression rule. */
  let previous = '';
  let previousWord = '';

  const quoted = (quote: string): void => {
    const start = i;
    const startLine = line;
    i++;
    let text = '';
    while (i < source.length && source[i] !== quote) {
      if (source[i] === '\\') {
        text += source.slice(i, i + 2);
        i += 2;
      } else text += source[i++];
    }
    i++;
    lineAt(start, i);
    found.push({ line: startLine, text });
  };

  /** A template string from its backtick to the matching one, its `${…}` parts scanned as code. */
  const template = (): void => {
    i++;
    let text = '';
    let startLine = line;
    while (i < source.length && source[i] !== '`') {
      if (source[i] === '\\') {
        text += source.slice(i, i + 2);
        if (source[i + 1] === '\n') line++;
        i += 2;
      } else if (source[i] === '$' && source[i + 1] === '{') {
        found.push({ line: startLine, text });
        text = '';
        i += 2;
        code(true);
        i++;
        startLine = line;
      } else {
        if (source[i] === '\n') line++;
        text += source[i++];
      }
    }
    i++;
    found.push({ line: startLine, text });
  };

  const regex = (): void => {
    i++;
    let inClass = false;
    while (i < source.length) {
      const c = source[i];
      if (c === '/' && !inClass) break;
      if (c === '[') inClass = true;
      if (c === ']') inClass = false;
      i += c === '\\' ? 2 : 1;
    }
    i++;
    while (/[a-z]/i.test(source[i] ?? '')) i++;
  };

  /** Code until the end, or (inside `${`) until its closing brace. */
  const code = (nested: boolean): void => {
    let depth = 0;
    while (i < source.length) {
      const c = source[i] as string;
      const next = source[i + 1];
      if (c === '\n') {
        line++;
        i++;
      } else if (/\s/.test(c)) i++;
      else if (c === '/' && next === '/') {
        while (i < source.length && source[i] !== '\n') i++;
      } else if (c === '/' && next === '*') {
        const end = source.indexOf('*/', i + 2);
        const stop = end === -1 ? source.length : end + 2;
        lineAt(i, stop);
        i = stop;
      } else if (c === "'" || c === '"') {
        quoted(c);
        previous = c;
        previousWord = '';
      } else if (c === '`') {
        template();
        previous = c;
        previousWord = '';
      } else if (
        c === '/' &&
        (previous === '' || BEFORE_REGEX.has(previous) || KEYWORDS_BEFORE_REGEX.test(previousWord))
      ) {
        regex();
        previous = '/';
      } else {
        if (c === '{') depth++;
        if (c === '}') {
          if (nested && depth === 0) return;
          depth--;
        }
        if (/[\w$]/.test(c)) {
          let word = '';
          while (i < source.length && /[\w$]/.test(source[i] as string)) word += source[i++];
          previous = word.at(-1) as string;
          previousWord = word;
          continue;
        }
        previous = c;
        previousWord = '';
        i++;
      }
    }
  };

  code(false);
  return found;
}

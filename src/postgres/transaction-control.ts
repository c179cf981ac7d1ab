/**
 * What `context.transaction` refuses: a statement that would end the receiver's transaction (and
 * commit the event's processed mark before `onEvent` is done) or change its characteristics. The
 * text is read as PostgreSQL's lexer reads it: comments, string literals, quoted identifiers and
 * dollar-quoted bodies are not statements; `;` separates statements (not inside a `BEGIN ATOMIC`
 * body). A guard against mistakes (node-postgres's own BEGIN/COMMIT recipe), not a sandbox: a DO
 * block or a procedure that commits fails on the server anyway inside a transaction block.
 */

interface Token {
  /** `word`: a keyword or identifier (lowercased); `quoted`: a "quoted" identifier; `string`: a literal's content. */
  readonly kind: 'word' | 'quoted' | 'string' | 'symbol';
  readonly text: string;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const NUMBER_PART = /[A-Za-z0-9_.]/;
/** The tag opening a dollar-quoted body, read at `lastIndex` (sticky): `$$`, `$tag$`. */
const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;
const SETTING = /^(?:default_)?transaction_/;

/** The lexer's state over one text: the position, the statements so far and the one being read. */
class Scanner {
  i = 0;
  readonly statements: Token[][] = [];
  current: Token[] = [];
  /** Depth of `BEGIN ATOMIC ... END` (and the `CASE ... END` inside it) in a `CREATE` statement. */
  atomic = 0;

  constructor(
    readonly text: string,
    /** Read `\` as an escape in every literal (`standard_conforming_strings = off`). */
    readonly backslashes: boolean,
  ) {}

  push(token: Token): void {
    this.current.push(token);
    if (token.kind === 'word') this.track(token.text);
  }

  /** `;` ends a statement, except inside a function body written `BEGIN ATOMIC ... END`. */
  end(): void {
    if (this.atomic > 0) {
      this.current.push({ kind: 'symbol', text: ';' });
      return;
    }
    this.statements.push(this.current);
    this.current = [];
  }

  track(word: string): void {
    // Called after a push: the statement has its first token.
    if (this.current[0]!.text !== 'create') return;
    // The keyword BEGIN, not a "begin" identifier that an alias `atomic` follows.
    if (word === 'atomic' && isWord(this.current[this.current.length - 2], 'begin')) this.atomic++;
    else if (word === 'case' && this.atomic > 0) this.atomic++;
    else if (word === 'end' && this.atomic > 0) this.atomic--;
  }
}

/** The index just past the comment starting at `i` (`--` to the line's end, `/* *\/` nested). */
function skipComment(text: string, i: number): number {
  if (text.startsWith('--', i)) {
    const eol = text.indexOf('\n', i);
    return eol < 0 ? text.length : eol + 1;
  }
  let depth = 0;
  let j = i;
  while (j < text.length) {
    if (text.startsWith('/*', j)) {
      depth++;
      j += 2;
    } else if (text.startsWith('*/', j)) {
      depth--;
      j += 2;
      if (depth === 0) return j;
    } else j++;
  }
  return j;
}

/** The index just past the literal quoted with `quote` that starts at `i` (`''` inside is one quote). */
function pastQuoted(text: string, i: number, quote: string, backslashes: boolean): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text[j];
    if (backslashes && c === '\\') j += 2;
    else if (c !== quote) j++;
    else if (text[j + 1] === quote) j += 2;
    else return j + 1;
  }
  return j;
}

/** Reads one token (or comment, or `;`) at the scanner's position. */
function step(s: Scanner): void {
  const { text } = s;
  const c = text[s.i]!;
  if (/\s/.test(c)) s.i++;
  else if (text.startsWith('--', s.i) || text.startsWith('/*', s.i)) s.i = skipComment(text, s.i);
  else if (c === ';') {
    s.end();
    s.i++;
  } else if (c === "'" || c === '"') {
    const next = pastQuoted(text, s.i, c, c === "'" && s.backslashes);
    s.push({ kind: c === "'" ? 'string' : 'quoted', text: text.slice(s.i + 1, next - 1).toLowerCase() });
    s.i = next;
  } else if (dollarQuoted(s)) return;
  else if (WORD_START.test(c) || /[0-9]/.test(c)) word(s);
  else {
    s.push({ kind: 'symbol', text: c });
    s.i++;
  }
}

/** A dollar-quoted body (`$$...$$`, `$tag$...$tag$`) at the position (the tag starts with `$`): one literal, whatever it holds. */
function dollarQuoted(s: Scanner): boolean {
  const { text } = s;
  DOLLAR_TAG.lastIndex = s.i;
  const tag = DOLLAR_TAG.exec(text)?.[0];
  if (tag === undefined) return false;
  const close = text.indexOf(tag, s.i + tag.length);
  const end = close < 0 ? text.length : close;
  s.push({ kind: 'string', text: text.slice(s.i + tag.length, end).toLowerCase() });
  s.i = end + tag.length; // past the text's end when the body is unterminated: the scan stops
  return true;
}

/** A keyword, identifier or number; `E'...'` is a literal whose `\` escapes. */
function word(s: Scanner): void {
  const { text } = s;
  const number = /[0-9]/.test(text[s.i]!);
  const part = number ? NUMBER_PART : WORD_PART;
  let j = s.i + 1;
  while (j < text.length && part.test(text[j]!)) j++;
  const w = text.slice(s.i, j);
  if ((w === 'e' || w === 'E') && text[j] === "'") {
    s.i = pastQuoted(text, j, "'", true);
    s.push({ kind: 'string', text: text.slice(j + 1, s.i - 1).toLowerCase() });
    return;
  }
  s.push({ kind: number ? 'symbol' : 'word', text: w.toLowerCase() });
  s.i = j;
}

/** The statements of `text`, as tokens. */
function statementsOf(text: string, backslashes: boolean): Token[][] {
  const s = new Scanner(text, backslashes);
  while (s.i < text.length) step(s);
  // What follows the last `;` (or all of an unterminated BEGIN ATOMIC body) is a statement too.
  s.statements.push(s.current);
  return s.statements;
}

/** Whether `t` is one of `words`, as a keyword (not quoted, not a literal). */
function isWord(t: Token | undefined, ...words: string[]): boolean {
  return t?.kind === 'word' && words.includes(t.text);
}

/** `SET [SESSION | LOCAL] TRANSACTION ...`, `... CHARACTERISTICS ...`, `SET transaction_isolation ...`, `RESET transaction_...`. */
function setsTransaction(tokens: Token[]): string | undefined {
  const verb = tokens[0]!.text;
  // RESET takes no SESSION/LOCAL (its only `RESET SESSION` is SESSION AUTHORIZATION, allowed either way).
  const name = isWord(tokens[1], 'session', 'local') ? tokens[2] : tokens[1];
  if (name === undefined) return undefined;
  // `RESET TRANSACTION ISOLATION LEVEL` is PostgreSQL's too.
  if (isWord(name, 'transaction')) return `${verb.toUpperCase()} TRANSACTION`;
  if (isWord(name, 'characteristics')) return 'SET SESSION CHARACTERISTICS';
  return SETTING.test(name.text) ? `${verb.toUpperCase()} ${name.text}` : undefined;
}

/** `set_config('transaction_isolation', ...)` anywhere in the statement. */
function callsSetConfig(tokens: Token[]): string | undefined {
  for (let k = 0; k + 2 < tokens.length; k++) {
    const [fn, open, name] = [tokens[k]!, tokens[k + 1]!, tokens[k + 2]!];
    if (isWord(fn, 'set_config') && open.text === '(' && name.kind === 'string' && SETTING.test(name.text))
      return `set_config('${name.text}')`;
  }
  return undefined;
}

/** `ROLLBACK [WORK | TRANSACTION] TO ...` is a savepoint's; any other ROLLBACK ends the transaction. */
function rollbackOf(tokens: Token[]): string | undefined {
  const next = isWord(tokens[1], 'work', 'transaction') ? tokens[2] : tokens[1];
  if (isWord(next, 'to')) return undefined;
  return isWord(next, 'prepared') ? 'ROLLBACK PREPARED' : 'ROLLBACK';
}

/** What one statement does to the transaction, when it is refused: its name; else undefined. */
function controlOf(tokens: Token[]): string | undefined {
  const [first, second] = tokens;
  if (first?.kind !== 'word') return undefined;
  switch (first.text) {
    case 'begin':
    case 'commit':
    case 'end':
    case 'abort':
      return isWord(second, 'prepared') ? `${first.text.toUpperCase()} PREPARED` : first.text.toUpperCase();
    case 'start':
      return 'START TRANSACTION';
    case 'rollback':
      return rollbackOf(tokens);
    case 'prepare':
      return isWord(second, 'transaction') ? 'PREPARE TRANSACTION' : undefined;
    case 'set':
    case 'reset':
      return setsTransaction(tokens) ?? callsSetConfig(tokens);
    default:
      return callsSetConfig(tokens);
  }
}

/**
 * The first statement of `text` that would end the transaction it runs in or change its
 * characteristics (`COMMIT`, `ROLLBACK`, `SET TRANSACTION`, ...), named; `undefined` when there is
 * none. Savepoints (`SAVEPOINT`, `RELEASE`, `ROLLBACK TO`) are not transaction control here. The
 * text is read both with and without backslash escapes in literals, so that neither setting of
 * `standard_conforming_strings` can hide a statement.
 */
export function transactionControlIn(text: string): string | undefined {
  for (const backslashes of [false, true])
    for (const tokens of statementsOf(text, backslashes)) {
      const found = controlOf(tokens);
      if (found !== undefined) return found;
    }
  return undefined;
}

/**
 * The SQL text of a node-postgres `query(config, ...)` call: the string itself, a config object's
 * `text`, a submittable's `text` (or its cursor's: `pg-query-stream`); `undefined` when there is
 * none to read (a named statement given by its name only).
 */
export function queryTextOf(config: unknown): string | undefined {
  if (typeof config === 'string') return config;
  // Anything else is read as an object (a number has no `text`).
  const { text, cursor } = (config ?? {}) as { text?: unknown; cursor?: { text?: unknown } };
  if (typeof text === 'string') return text;
  return typeof cursor?.text === 'string' ? cursor.text : undefined;
}

/**
 * Why a node-postgres `query(config, ...)` call is refused on the receiver's transaction: the
 * transaction control its text holds, or a text that cannot be read (a named statement given by
 * its name only may have been prepared on the pooled connection with any text); `undefined` when
 * it may run. A missing `config` is left to the driver's own error.
 */
export function refusedStatement(config: unknown): string | undefined {
  if (config === null || config === undefined) return undefined;
  const text = queryTextOf(config);
  if (text === undefined) return 'A query whose SQL text cannot be read (a named statement without its text)';
  return transactionControlIn(text);
}

/**
 * Fails a node-postgres `query(...)` call with `error` the way that call reports errors: through
 * its callback (returning nothing), through a submittable's `handleError` (returning it), or as a
 * rejected promise. Never throws.
 */
export function failQuery(args: readonly unknown[], error: Error): unknown {
  const [config, values, callback] = args;
  type Report = (err: Error) => void;
  const submittable = config as { submit?: unknown; callback?: unknown; handleError?: Report } | null | undefined;
  const done = [values, callback, submittable?.callback].find((f): f is Report => typeof f === 'function');
  if (typeof submittable?.submit === 'function') {
    const { handleError } = submittable;
    const report = done ?? (typeof handleError === 'function' ? (err: Error) => handleError.call(submittable, err) : undefined);
    if (report !== undefined) queueMicrotask(() => report(error));
    return submittable;
  }
  if (done !== undefined) {
    queueMicrotask(() => done(error));
    return undefined;
  }
  return Promise.reject(error);
}

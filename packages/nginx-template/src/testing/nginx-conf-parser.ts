/**
 * Test-only: a tokenizer for nginx.conf that follows nginx's own rules (ngx_conf_read_token):
 * whitespace separates tokens, `;` ends a directive, `{`/`}` open and close blocks, `#` starts a
 * comment only where a token could start, `"`/`'` quote with backslash escapes, and the body of a
 * `*_by_lua_block` is opaque Lua. Used to prove that hostile input adds no directive.
 */

/** One argument as nginx sees it, and whether it was quoted. */
export interface Argument {
  value: string;
  quoted: boolean;
}

/** One directive with its arguments and, for blocks, its children. */
export interface Directive {
  name: string;
  args: Argument[];
  children?: Directive[];
}

class ParseError extends Error {
  override readonly name = 'ParseError';
}

/** Parses nginx.conf text; throws on unbalanced braces or an unterminated directive. */
export function parseNginxConf(text: string): Directive[] {
  let index = 0;

  function skipLuaBlock(): void {
    let depth = 1;
    let quote: string | undefined;
    for (; index < text.length; index++) {
      const ch = text[index];
      if (quote !== undefined) {
        if (ch === '\\') index++;
        else if (ch === quote) quote = undefined;
        continue;
      }
      if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) {
        index++;
        return;
      }
    }
    throw new ParseError('unterminated Lua block');
  }

  function readToken(): Argument | { delimiter: ';' | '{' | '}' } | undefined {
    for (;;) {
      while (index < text.length && /\s/.test(text[index]!)) index++;
      if (index >= text.length) return undefined;
      if (text[index] === '#') {
        while (index < text.length && text[index] !== '\n') index++;
        continue;
      }
      break;
    }
    const ch = text[index]!;
    if (ch === ';' || ch === '{' || ch === '}') {
      index++;
      return { delimiter: ch };
    }
    if (ch === '"' || ch === "'") {
      index++;
      let value = '';
      for (;;) {
        if (index >= text.length) throw new ParseError('unterminated quoted string');
        const current = text[index]!;
        if (current === '\\' && index + 1 < text.length) {
          const next = text[index + 1]!;
          // nginx keeps the backslash except before a quote or a backslash.
          value += next === '"' || next === "'" || next === '\\' ? next : current + next;
          index += 2;
          continue;
        }
        index++;
        if (current === ch) break;
        value += current;
      }
      const after = text[index];
      // nginx allows ")" straight after a quoted string, for `if ($a = "b")`.
      if (after !== undefined && !/[\s;{})]/.test(after))
        throw new ParseError(`unexpected "${after}" after a quoted string`);
      return { value, quoted: true };
    }
    let value = '';
    while (index < text.length && !/[\s;{}]/.test(text[index]!)) {
      if (text[index] === '\\' && index + 1 < text.length) {
        value += text[index + 1];
        index += 2;
        continue;
      }
      value += text[index];
      index++;
    }
    return { value, quoted: false };
  }

  function parseBlock(isTop: boolean): Directive[] {
    const directives: Directive[] = [];
    let current: Argument[] = [];
    for (;;) {
      const token = readToken();
      if (token === undefined) {
        if (!isTop || current.length > 0) throw new ParseError('unexpected end of file');
        return directives;
      }
      if ('delimiter' in token) {
        if (token.delimiter === '}') {
          if (isTop || current.length > 0) throw new ParseError('unexpected "}"');
          return directives;
        }
        const [name, ...args] = current;
        // Quoted names are legal (map entries such as `"" $host;` use them).
        if (name === undefined) throw new ParseError(`directive without a name before "${token.delimiter}"`);
        current = [];
        if (token.delimiter === ';') {
          directives.push({ name: name.value, args });
        } else if (name.value.endsWith('_by_lua_block')) {
          skipLuaBlock();
          directives.push({ name: name.value, args, children: [] });
        } else {
          directives.push({ name: name.value, args, children: parseBlock(false) });
        }
        continue;
      }
      current.push(token);
    }
  }

  return parseBlock(true);
}

/** Every directive as its context path, e.g. `http/server/location/proxy_pass`. */
export function listDirectivePaths(directives: readonly Directive[], context = ''): Set<string> {
  const paths = new Set<string>();
  for (const directive of directives) {
    const path = context === '' ? directive.name : `${context}/${directive.name}`;
    paths.add(path);
    for (const child of listDirectivePaths(directive.children ?? [], path)) paths.add(child);
  }
  return paths;
}

/** Counts directives with `name` anywhere in the tree (only blocks when `blocksOnly`). */
export function countDirectives(directives: readonly Directive[], name: string, blocksOnly = false): number {
  return directives.reduce(
    (count, directive) =>
      count +
      (directive.name === name && (!blocksOnly || directive.children !== undefined) ? 1 : 0) +
      countDirectives(directive.children ?? [], name, blocksOnly),
    0,
  );
}

/** Unquoted arguments and directive names anywhere in the tree. */
export function listUnquotedTokens(directives: readonly Directive[]): string[] {
  return directives.flatMap((directive) => [
    directive.name,
    ...directive.args.filter((arg) => !arg.quoted).map((arg) => arg.value),
    ...listUnquotedTokens(directive.children ?? []),
  ]);
}

/**
 * The text of nginx.conf's http block before its upstreams and servers: the http-level settings,
 * maps and header lines, without the copies the hop location and server make of some of them.
 */
export function httpSettingsOf(conf: string): string {
  return conf.slice(conf.indexOf('\nhttp {'), conf.indexOf('\n    upstream ingresskit_upstream {'));
}

/** The text of the `upstream ingresskit_upstream` block. */
export function balancedUpstreamOf(conf: string): string {
  const start = conf.indexOf('\n    upstream ingresskit_upstream {');
  return conf.slice(start, conf.indexOf('\n    }', start));
}

/**
 * Docs that compile: every ```ts block of every README is type-checked, strictly, against the
 * packages' sources, so an example cannot drift from the API it shows. A block may use names it
 * does not define (`ingresses`, `kubeConfig`) only by declaring them in a `// given:` comment line
 * of the block, `// given: const ingresses: IngressLike[]`, which the check turns into a
 * declaration; everything else must stand on its own. (The consumer smoke test also runs each
 * package's example against the packed package: scripts/consumer-smoke/.)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const workDir = join(root, 'tests', '.readme-blocks');

interface Block {
  readme: string;
  line: number;
  code: string;
}

function readmes(): string[] {
  const found = ['README.md'];
  for (const parent of ['packages', 'apps']) {
    for (const dir of readdirSync(join(root, parent))) {
      try {
        readFileSync(join(root, parent, dir, 'README.md'));
        found.push(join(parent, dir, 'README.md'));
      } catch {
        // No README in this directory.
      }
    }
  }
  return found;
}

function blocksOf(readme: string): Block[] {
  const lines = readFileSync(join(root, readme), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    blocks.push({ readme, line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** The block as a module: `// given:` lines become ambient declarations. */
function asModule(block: Block): string {
  const given = block.code
    .split('\n')
    .map((line) => /^\s*\/\/ given: (.*)$/.exec(line)?.[1])
    .filter((declaration): declaration is string => declaration !== undefined)
    .map((declaration) => `declare ${declaration};`);
  return `${block.code}\n${given.join('\n')}\nexport {};\n`;
}

const blocks = readmes().flatMap(blocksOf);

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('README TypeScript blocks', () => {
  it('finds a block in every package README', () => {
    const withBlocks = new Set(blocks.map((block) => block.readme));
    for (const readme of readmes().filter((path) => path.startsWith('packages/'))) {
      expect(withBlocks.has(readme), readme).toBe(true);
    }
  });

  it('type-checks every block strictly against the sources', () => {
    rmSync(workDir, { recursive: true, force: true });
    mkdirSync(workDir, { recursive: true });
    const files = blocks.map((block, index) => {
      const file = join(workDir, `${index}-${block.readme.replace(/[/.]/g, '_')}.ts`);
      writeFileSync(file, asModule(block));
      return { file, block };
    });
    const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const program = ts.createProgram(
      files.map(({ file }) => file),
      { ...parsed.options, noEmit: true, strict: true, noUnusedLocals: false },
    );
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file?.fileName.startsWith(workDir))
      .map((diagnostic) => {
        const entry = files.find(({ file }) => file === diagnostic.file!.fileName)!;
        const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const where = `${entry.block.readme}:${entry.block.line + line}`;
        return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      });
    expect(problems, relative(root, workDir)).toEqual([]);
  });
});

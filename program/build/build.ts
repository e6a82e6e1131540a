/**
 * `npm run build:program`: compiles program/src/*.c with clang (-target bpf -mcpu=v2) and links
 * the objects into program/updown.so. `--check` rebuilds into a temporary file and exits 1
 * when a byte differs from the committed .so (CI guard: the committed binary is the source's).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRelocatable } from './elf-read.ts';
import { linkImage } from './relocate.ts';
import { TEXT_OFFSET, writeSharedObject } from './elf-write.ts';

const programDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = join(programDir, 'src');
const outputPath = join(programDir, 'updown.so');
/** Debian's clang-19: the committed bytes are what this compiler produces. */
const clang = 'clang-19';

/** Compiler flags: SBPF v0 needs -mcpu=v2 (no alu32), big frames, no builtins, no jump tables. */
const CFLAGS = [
  '-target',
  'bpf',
  '-mcpu=v2',
  '-O2',
  '-std=c11',
  '-ffreestanding',
  '-fno-builtin',
  '-fno-jump-tables',
  '-mllvm',
  '-bpf-stack-size=4096',
  '-Wall',
  '-Wextra',
  '-Werror',
];

type Relocatable = ReturnType<typeof readRelocatable>;

/** Compiles one C source with `flags` added. */
function compile(source: string, work: string, i: number, flags: readonly string[]): Relocatable {
  const object = join(work, `${i}-${basename(source, '.c')}.o`);
  execFileSync(clang, [...CFLAGS, ...flags, '-c', source, '-o', object], { stdio: ['ignore', 'inherit', 'inherit'] });
  return readRelocatable(basename(source), readFileSync(object));
}

/** Compiles C sources (in the given order) and links them into an SBPF v0 shared object. */
export function buildSharedObject(sources: string[], flags: readonly string[] = []): Uint8Array {
  const work = mkdtempSync(join(tmpdir(), 'updown-build-'));
  try {
    return writeSharedObject(
      linkImage(
        sources.map((source, i) => compile(source, work, i, flags)),
        TEXT_OFFSET,
      ),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const programSources = (): string[] =>
  readdirSync(sourceDir)
    .filter((f) => f.endsWith('.c'))
    .sort()
    .map((source) => join(sourceDir, source));

let baseObjects: Relocatable[] | undefined;
/** A check left out may leave a value it alone read unused. */
const VARIANT_FLAGS = ['-Wno-unused-variable', '-Wno-unused-but-set-variable', '-Wno-unused-parameter', '-Wno-unused-function'];

/**
 * A test build of the program with the signed-price checks in `skipChecks` left out (the SKIP_*
 * bits of src/prices.h): the attack tests run an attack on it to show that the check they name is
 * what stops the attack on the real build. Only the sources that read the bits are recompiled.
 */
export function buildProgramWithout(skipChecks: number): Uint8Array {
  const sources = programSources();
  const work = mkdtempSync(join(tmpdir(), 'updown-variant-'));
  try {
    baseObjects ??= sources.map((source, i) => compile(source, work, i, []));
    const objects = sources.map((source, i) =>
      readFileSync(source, 'utf8').includes('SKIP_CHECKS')
        ? compile(source, work, i, [`-DSKIP_CHECKS=${skipChecks}`, ...VARIANT_FLAGS])
        : (baseObjects![i] as Relocatable),
    );
    return writeSharedObject(linkImage(objects, TEXT_OFFSET));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Builds the program from program/src/*.c (sorted by name, so the output is deterministic). */
export function buildProgram(): Uint8Array {
  return buildSharedObject(programSources());
}

/** Where `npm run build:program` writes the program. */
export const PROGRAM_OUTPUT_PATH = outputPath;

function main(): void {
  const built = buildProgram();
  if (process.argv.includes('--check')) {
    let committed: Uint8Array;
    try {
      committed = readFileSync(outputPath);
    } catch {
      console.error(`program/updown.so is missing: run npm run build:program`);
      process.exit(1);
    }
    const same = committed.length === built.length && committed.every((byte, i) => byte === built[i]);
    if (!same) {
      console.error(`program/updown.so differs from a fresh build (${committed.length} vs ${built.length} bytes): run npm run build:program and commit it`);
      process.exit(1);
    }
    console.log(`program/updown.so matches the sources (${built.length} bytes)`);
    return;
  }
  writeFileSync(outputPath, built);
  console.log(`wrote program/updown.so (${built.length} bytes)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

// Writes the golden files the Go tests compare against, using OpenAI's
// tiktoken and Hugging Face's tokenizers as oracles:
//
//   node gen.mjs [--out DIR] [--fixtures DIR] [--llama3 PATH/tokenizer.json]
//
// --fixtures (default ../hf) holds the tokenizer.json files to encode with.
// DIR (default ../golden) receives
//   hf.jsonl        {"text", "ids": {fixture: ids}} for every ../hf fixture,
//                   encode(text, add_special_tokens=false)
//   hf-special.jsonl the same for the first 100 texts with
//                   add_special_tokens=true
//   tiktoken.jsonl  {"text", "ids": {encoding: ids}}, special-token text
//                   encoded as plain text (encode_ordinary)
//   passages.jsonl  ~1 KB passages (JSON strings) for the speed comparison
//   codepoints.json per encoding, the SHA-256 of the token counts of
//                   "a" + c + "1 " + c + "b" for every code point c (no
//                   surrogates), written as decimal numbers joined by ","
//   codepoints-sample.json per encoding, the same counts, in full, for the
//                   sample the default test run checks: every code point
//                   below U+0800 and every 101st one above (no surrogates)
//   runs.jsonl      {"unit", "n", "counts": {tokenizer: count}}: the token
//                   counts of unit repeated n times, for every encoding and
//                   every ../hf fixture (long runs are one piece each)
//   llama3.jsonl    with --llama3: the hf.jsonl texts encoded by that file
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import tk from "tokenizers";
import { get_encoding } from "tiktoken";
import { mixedTexts, passages, runTexts } from "./texts.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    out: { type: "string", default: path.join(here, "..", "golden") },
    fixtures: { type: "string", default: path.join(here, "..", "hf") },
    llama3: { type: "string" },
  },
});

export const hfTexts = () => mixedTexts(1, 1200);
export const tiktokenTexts = () => mixedTexts(2, 2000).concat(passages(3, 10, 1024));
export const benchPassages = () => passages(4, 256, 1024);

const jsonl = (rows) => rows.map((r) => JSON.stringify(r) + "\n").join("");

async function encodeAll(tokenizers, texts, addSpecialTokens = false) {
  const rows = [];
  for (const text of texts) {
    const ids = {};
    for (const [name, tok] of tokenizers) {
      ids[name] = (await tok.encode(text, null, { addSpecialTokens })).getIds();
    }
    rows.push({ text, ids });
  }
  return rows;
}

function loadFixtures() {
  const dir = args.fixtures;
  return fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
    .map((f) => [f.replace(/\.json$/, ""), tk.Tokenizer.fromFile(path.join(dir, f))]);
}

function tiktokenRows(texts) {
  const encs = ["cl100k_base", "o200k_base", "p50k_base", "r50k_base"].map((n) => [n, get_encoding(n)]);
  const rows = texts.map((text) => ({
    text,
    ids: Object.fromEntries(encs.map(([n, e]) => [n, Array.from(e.encode_ordinary(text))])),
  }));
  encs.forEach(([, e]) => e.free());
  return rows;
}

export function codePointText(cp) {
  const c = String.fromCodePoint(cp);
  return "a" + c + "1 " + c + "b";
}

// codePointCounts counts the tokens of codePointText(cp) for every code
// point keep accepts, in cl100k_base and o200k_base.
function codePointCounts(keep) {
  const out = {};
  for (const n of ["cl100k_base", "o200k_base"]) {
    const e = get_encoding(n);
    const counts = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (keep(cp)) counts.push(e.encode_ordinary(codePointText(cp)).length);
    }
    e.free();
    out[n] = counts;
  }
  return out;
}

const notSurrogate = (cp) => cp < 0xd800 || cp > 0xdfff;

function codePointHashes() {
  const out = {};
  for (const [n, counts] of Object.entries(codePointCounts(notSurrogate))) {
    out[n] = createHash("sha256").update(counts.join(",")).digest("hex");
  }
  return out;
}

// inCodePointSample is the rule of codepoints-sample.json; the Go test
// repeats it.
export const inCodePointSample = (cp) => (cp < 0x800 || cp % 101 === 0) && notSurrogate(cp);

async function runRows() {
  const encs = ["cl100k_base", "o200k_base", "p50k_base", "r50k_base"].map((n) => [n, get_encoding(n)]);
  const fixtures = loadFixtures();
  const rows = [];
  for (const { unit, n, text } of runTexts()) {
    const counts = Object.fromEntries(encs.map(([name, e]) => [name, e.encode_ordinary(text).length]));
    for (const [name, tok] of fixtures) {
      counts[name] = (await tok.encode(text, null, { addSpecialTokens: false })).getIds().length;
    }
    rows.push({ unit, n, counts });
  }
  encs.forEach(([, e]) => e.free());
  return rows;
}

async function main() {
  fs.mkdirSync(args.out, { recursive: true });
  const write = (name, text) => fs.writeFileSync(path.join(args.out, name), text);
  write("hf.jsonl", jsonl(await encodeAll(loadFixtures(), hfTexts())));
  write("hf-special.jsonl", jsonl(await encodeAll(loadFixtures(), hfTexts().slice(0, 100), true)));
  write("tiktoken.jsonl", jsonl(tiktokenRows(tiktokenTexts())));
  write("passages.jsonl", jsonl(benchPassages()));
  write("runs.jsonl", jsonl(await runRows()));
  write("codepoints.json", JSON.stringify(codePointHashes(), null, 1) + "\n");
  write("codepoints-sample.json", JSON.stringify(codePointCounts(inCodePointSample)) + "\n");
  if (args.llama3) {
    write("llama3.jsonl", jsonl(await encodeAll([["llama3", tk.Tokenizer.fromFile(args.llama3)]], hfTexts())));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

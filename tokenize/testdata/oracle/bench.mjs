// Measures OpenAI's tiktoken (npm) counting o200k_base tokens over the same
// ~1 KB passages as the Go benchmark BenchmarkCount, and prints tokens/s and
// MB/s in the same units.
//
//   node bench.mjs [seconds]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { get_encoding } from "tiktoken";

const here = path.dirname(fileURLToPath(import.meta.url));
const file = path.join(here, "..", "golden", "passages.jsonl");
const passages = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
const bytes = passages.reduce((n, p) => n + Buffer.byteLength(p), 0);
const seconds = Number(process.argv[2] ?? 3);

const enc = get_encoding("o200k_base");
const pass = () => passages.reduce((n, p) => n + enc.encode_ordinary(p).length, 0);
pass(); // warm up
let tokens = 0;
let rounds = 0;
const start = process.hrtime.bigint();
let elapsed = 0;
while (elapsed < seconds) {
  tokens += pass();
  rounds++;
  elapsed = Number(process.hrtime.bigint() - start) / 1e9;
}
enc.free();
console.log(
  `npm tiktoken o200k_base: ${(tokens / elapsed).toFixed(0)} tokens/s, ` +
    `${((rounds * bytes) / elapsed / 1e6).toFixed(2)} MB/s (${passages.length} passages, ${rounds} rounds)`,
);

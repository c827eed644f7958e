// The parts every example pipeline shares: the passages and queries of
// data.json, keyword scoring, the reranker's score, a packer that fits
// passages into a budget of tokens, and a fake OpenAI-compatible chat
// server on loopback that gives each query its fixed answer.
//
// Tokens are whitespace-separated words. The packer keeps passages whole
// while they fit in budget_tokens; the first that does not fit is cut to
// the tokens left (when at least min_tokens are) and packing stops.
import { readFileSync, realpathSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";

export const data = JSON.parse(readFileSync(new URL("./data.json", import.meta.url), "utf8"));

const stop = new Set(data.stopwords);
const terms = (text) => new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w && !stop.has(w)));

// overlap is the number of distinct query terms the text holds.
export function overlap(query, text) {
  const q = terms(query);
  let n = 0;
  for (const w of terms(text)) if (q.has(w)) n++;
  return n;
}

// keywordSearch returns the top k passages by overlap (ties in corpus
// order), as {passage, score}.
export function keywordSearch(query, k) {
  return data.passages
    .map((passage, i) => ({ passage, i, score: overlap(query, passage.text) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, k)
    .map(({ passage, score }) => ({ passage, score }));
}

// rerankScore is the overlap plus the passage's quality prior.
export const rerankScore = (query, id, text) => overlap(query, text) + data.prior[id];

export const tokens = (text) => text.split(/\s+/).filter(Boolean);

// pack takes texts in order and returns what of each goes into the
// context: the whole text, a prefix of it, and nothing after the cut.
export function pack(texts, budget = data.budget_tokens) {
  const out = [];
  let left = budget;
  for (const text of texts) {
    const t = tokens(text);
    if (t.length <= left) {
      out.push(text);
      left -= t.length;
      continue;
    }
    if (left >= data.min_tokens) out.push(t.slice(0, left).join(" "));
    break;
  }
  return out;
}

// fakeOpenAI serves POST /v1/chat/completions on 127.0.0.1: the answer is
// that of the query whose text the last message holds.
export async function fakeOpenAI() {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const messages = JSON.parse(body || "{}").messages ?? [];
      const last = messages.at(-1)?.content ?? "";
      const text = typeof last === "string" ? last : last.map((p) => p.text ?? "").join("");
      const q = data.queries.find((q) => text.includes(q.text));
      if (req.url !== "/v1/chat/completions" || !q) {
        res.writeHead(404).end();
        return;
      }
      const prompt = tokens(messages.map((m) => (typeof m.content === "string" ? m.content : "")).join(" ")).length;
      const completion = tokens(q.answer).length;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
        id: `chatcmpl-${q.id}`, object: "chat.completion", created: 0, model: "fake-chat",
        choices: [{ index: 0, message: { role: "assistant", content: q.answer }, finish_reason: "stop" }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      }));
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((ok) => server.close(ok)) };
}

// node rag.mjs corpus prints the passages as a ragstat corpus (JSON Lines:
// each passage's metadata and its text), for ragstat import and stages
// --corpus. The script run is compared by its real path, as node loads it,
// so that it is found through a symbolic link too.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2] !== "corpus") {
    console.error("usage: node rag.mjs corpus > corpus.jsonl");
    process.exit(2);
  }
  for (const p of data.passages) console.log(JSON.stringify({ ...p.metadata, text: p.text }));
}

// deliveries counts the spans an exporter could not deliver (the run fails
// on any): wrap(exporter) is the exporter, counting.
export function deliveries() {
  const d = {
    failed: 0,
    wrap(exporter) {
      return {
        export(spans, done) {
          exporter.export(spans, (result) => {
            if (result.code !== 0) { // ExportResultCode.SUCCESS
              d.failed += spans.length;
              console.error("export failed:", result.error?.message ?? result.error);
            }
            done(result);
          });
        },
        shutdown: () => exporter.shutdown(),
        forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
      };
    },
  };
  return d;
}

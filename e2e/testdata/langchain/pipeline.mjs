// A small retrieval-augmented generation pipeline built from LangChain.js
// parts, traced by OpenInference's LangChain instrumentation and exported
// over OTLP/HTTP to the endpoint in OTEL_EXPORTER_OTLP_ENDPOINT.
//
//   node pipeline.mjs EXPORTER:SYSTEM...
//
// runs the pipeline once per argument, as the system SYSTEM (the resource's
// service.name), exporting with EXPORTER: json is the OTLP/HTTP JSON
// exporter, gzip-compressed, one request per span as each span ends
// (SimpleSpanProcessor); proto is the protobuf exporter, uncompressed, spans
// batched (BatchSpanProcessor).
//
// The pipeline: a keyword retriever (KeywordRetriever, top 4 by the number of
// distinct query terms a passage holds, ties in corpus order), wrapped by a
// reranking retriever (RerankRetriever, top 3 by terms plus the passage's
// quality prior), a packing step that fits "[id] text" blocks into a budget
// of characters and cuts the passage that does not fit, a prompt template,
// and a fake chat model with fixed answers. The query id travels as run
// metadata (query_id).
import { readFileSync } from "node:fs";
import { BaseRetriever } from "@langchain/core/retrievers";
import { Document } from "@langchain/core/documents";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda, RunnablePassthrough, RunnableSequence } from "@langchain/core/runnables";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import * as CallbackManagerModule from "@langchain/core/callbacks/manager";
import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain";
import { NodeTracerProvider, SimpleSpanProcessor, BatchSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { OTLPTraceExporter as JSONExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";

const runs = process.argv.slice(2).map((a) => a.split(":"));
if (!runs.length || runs.some(([kind, system]) => !["json", "proto"].includes(kind) || !system) || !process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  console.error("usage: OTEL_EXPORTER_OTLP_ENDPOINT=URL node pipeline.mjs json|proto:SYSTEM...");
  process.exit(2);
}
const data = JSON.parse(readFileSync(new URL("./data.json", import.meta.url), "utf8"));

// Count what the exporter could not deliver: the run fails on any.
let failed = 0;
function counting(exporter) {
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== 0) { // ExportResultCode.SUCCESS
          failed += spans.length;
          console.error("export failed:", result.error?.message ?? result.error);
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

function tracerProvider(kind, system) {
  const processor = kind === "json"
    ? new SimpleSpanProcessor(counting(new JSONExporter({ compression: "gzip", timeoutMillis: 10000 })))
    : new BatchSpanProcessor(counting(new ProtoExporter({ timeoutMillis: 10000 })), { maxExportBatchSize: 8, scheduledDelayMillis: 50 });
  return new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": system }),
    spanProcessors: [processor],
  });
}
const instrumentation = new LangChainInstrumentation();
instrumentation.manuallyInstrument(CallbackManagerModule);

const stop = new Set(data.stopwords);
const terms = (text) => new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w && !stop.has(w)));
const corpus = data.passages.map((p) => new Document({ pageContent: p.text, metadata: p.metadata }));

function overlap(query, doc) {
  const q = terms(query);
  let n = 0;
  for (const w of terms(doc.pageContent)) if (q.has(w)) n++;
  return n;
}

class KeywordRetriever extends BaseRetriever {
  lc_namespace = ["ragstat", "e2e"];
  constructor(k) {
    super({});
    this.k = k;
  }
  async _getRelevantDocuments(query) {
    return corpus
      .map((doc, i) => ({ doc, i, s: overlap(query, doc) }))
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, this.k)
      .map((x) => x.doc);
  }
}

// RerankRetriever reorders what the retriever it wraps found (the
// contextual-compression pattern): the inner retrieval is a child run.
class RerankRetriever extends BaseRetriever {
  lc_namespace = ["ragstat", "e2e"];
  constructor(base, k) {
    super({});
    this.base = base;
    this.k = k;
  }
  async _getRelevantDocuments(query, runManager) {
    const found = await this.base.invoke(query, { callbacks: runManager?.getChild("base") });
    return found
      .map((doc, i) => ({ doc, i, s: overlap(query, doc) + data.prior[doc.metadata.id] }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, this.k)
      .map((x) => x.doc);
  }
}

// pack fits "[id] text" blocks, separated by a blank line, into the budget
// of characters; the first block that does not fit is cut to what is left
// (when at least 40 characters are) and packing stops.
const pack = RunnableLambda.from((docs) => {
  const blocks = [];
  let left = data.budget_chars;
  for (const doc of docs) {
    const sep = blocks.length ? 2 : 0;
    const block = `[${doc.metadata.id}] ${doc.pageContent}`;
    if (sep + block.length <= left) {
      blocks.push(block);
      left -= sep + block.length;
      continue;
    }
    if (left - sep >= 40) blocks.push(block.slice(0, left - sep));
    break;
  }
  return blocks.join("\n\n");
}).withConfig({ runName: "pack" });

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "Answer from the context only and cite passages as [id].\n\nContext:\n{context}"],
  ["human", "{question}"],
]);

for (const [kind, system] of runs) {
  const provider = tracerProvider(kind, system);
  instrumentation.setTracerProvider(provider);
  const model = new FakeListChatModel({ responses: data.queries.map((q) => q.answer) });
  const chain = RunnableSequence.from([
    { context: new RerankRetriever(new KeywordRetriever(4), 3).pipe(pack), question: new RunnablePassthrough() },
    prompt,
    model,
    new StringOutputParser(),
  ]).withConfig({ runName: "rag" });
  for (const q of data.queries) {
    const answer = await chain.invoke(q.text, { metadata: { query_id: q.id } });
    if (answer !== q.answer) throw new Error(`query ${q.id}: answer ${answer}`);
  }
  await provider.forceFlush();
  await provider.shutdown();
  console.log(`${data.queries.length} queries traced as ${system} and exported (${kind})`);
}
if (failed) {
  console.error(`${failed} spans were not delivered`);
  process.exit(1);
}

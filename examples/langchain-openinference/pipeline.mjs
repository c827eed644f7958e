// A retrieval-augmented generation pipeline built from LangChain.js parts,
// traced by OpenInference's LangChain instrumentation and exported over
// OTLP/HTTP to the endpoint in OTEL_EXPORTER_OTLP_ENDPOINT.
//
//   OTEL_EXPORTER_OTLP_ENDPOINT=URL node pipeline.mjs EXPORTER:SYSTEM...
//
// runs every query of ../data.json once per argument, as the system SYSTEM
// (the resource's service.name), exporting with EXPORTER: json is the
// OTLP/HTTP JSON exporter, gzip-compressed, one request per span as each
// span ends (SimpleSpanProcessor: the exporter's limit of requests in
// flight, 30 by default, is raised to 64, above the 40 spans of a run); proto is the protobuf exporter,
// uncompressed, spans batched (BatchSpanProcessor).
//
// The pipeline: a keyword retriever (KeywordRetriever, top 4 by the number
// of distinct query terms a passage holds, ties in corpus order), wrapped
// by a reranking retriever (RerankRetriever, top 3 by terms plus the
// passage's quality prior), a packing step that fits the passages into a
// budget of tokens and cuts the one that does not fit, a prompt template,
// and a fake chat model with fixed answers.
//
// What to copy into an application of your own: the query id travels as
// run metadata (query_id, in the metadata attribute of every span); the
// documents carry their id in their metadata (import with --item-id
// metadata.id).
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
import { data, keywordSearch, rerankScore, pack, deliveries } from "../rag.mjs";

const runs = process.argv.slice(2).map((a) => a.split(":"));
if (!runs.length || runs.some(([kind, system]) => !["json", "proto"].includes(kind) || !system) || !process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  console.error("usage: OTEL_EXPORTER_OTLP_ENDPOINT=URL node pipeline.mjs json|proto:SYSTEM...");
  process.exit(2);
}

// Count what the exporter could not deliver: the run fails on any.
const delivery = deliveries();

function tracerProvider(kind, system) {
  const processor = kind === "json"
    ? new SimpleSpanProcessor(delivery.wrap(new JSONExporter({ compression: "gzip", timeoutMillis: 10000, concurrencyLimit: 64 })))
    : new BatchSpanProcessor(delivery.wrap(new ProtoExporter({ timeoutMillis: 10000 })), { maxExportBatchSize: 8, scheduledDelayMillis: 50 });
  return new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": system }),
    spanProcessors: [processor],
  });
}
const instrumentation = new LangChainInstrumentation();
instrumentation.manuallyInstrument(CallbackManagerModule);

const toDocument = (p) => new Document({ pageContent: p.text, metadata: p.metadata });

class KeywordRetriever extends BaseRetriever {
  lc_namespace = ["ragstat", "examples"];
  constructor(k) {
    super({});
    this.k = k;
  }
  async _getRelevantDocuments(query) {
    return keywordSearch(query, this.k).map(({ passage }) => toDocument(passage));
  }
}

// RerankRetriever reorders what the retriever it wraps found (the
// contextual-compression pattern): the inner retrieval is a child run.
class RerankRetriever extends BaseRetriever {
  lc_namespace = ["ragstat", "examples"];
  constructor(base, k) {
    super({});
    this.base = base;
    this.k = k;
  }
  async _getRelevantDocuments(query, runManager) {
    const found = await this.base.invoke(query, { callbacks: runManager?.getChild("base") });
    return found
      .map((doc, i) => ({ doc, i, s: rerankScore(query, doc.metadata.id, doc.pageContent) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, this.k)
      .map((x) => x.doc);
  }
}

// pack fits the passages' texts into the budget of tokens and writes the
// context as "[id] text" blocks separated by a blank line.
const packer = RunnableLambda.from((docs) => pack(docs.map((d) => d.pageContent))
  .map((text, i) => `[${docs[i].metadata.id}] ${text}`)
  .join("\n\n")).withConfig({ runName: "pack", metadata: { budget_tokens: data.budget_tokens } });

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "Answer from the context only and cite passages as [id].\n\nContext:\n{context}"],
  ["human", "{question}"],
]);

for (const [kind, system] of runs) {
  const provider = tracerProvider(kind, system);
  instrumentation.setTracerProvider(provider);
  const model = new FakeListChatModel({ responses: data.queries.map((q) => q.answer) });
  const chain = RunnableSequence.from([
    { context: new RerankRetriever(new KeywordRetriever(4), 3).pipe(packer), question: new RunnablePassthrough() },
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
if (delivery.failed) {
  console.error(`${delivery.failed} spans were not delivered`);
  process.exit(1);
}

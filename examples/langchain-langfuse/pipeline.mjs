// A retrieval-augmented generation pipeline built from LangChain.js parts,
// traced by the Langfuse SDK (@langfuse/langchain's callback handler and
// @langfuse/otel's span processor) and exported over OTLP/HTTP.
//
//   LANGFUSE_BASE_URL=URL node pipeline.mjs langfuse|json|proto SYSTEM
//
// runs every query of ../data.json once as the system SYSTEM (the
// resource's service.name). langfuse is the SDK's own exporter (OTLP/HTTP
// JSON to URL/api/public/otel/v1/traces, with the project's keys); json and
// proto are OpenTelemetry's OTLP/HTTP JSON and protobuf exporters, posting
// to URL/v1/traces. Spans are exported in batches (exportMode "batched": the
// "immediate" mode drops spans when many end at once).
//
// The pipeline: a keyword retriever (KeywordRetriever, top 4 by the number
// of distinct query terms a passage holds), wrapped by a contextual
// compression retriever whose compressor reranks (top 3 by terms plus the
// passage's quality prior, the score in metadata.relevanceScore), a packing
// step that fits the passages into a budget of tokens and cuts the one that
// does not fit, a prompt template and a fake chat model with fixed answers.
//
// What to copy into an application of your own: the query id travels as run
// metadata (langfuse.observation.metadata.query_id on every span), the
// packing step's budget as its metadata (budget_tokens).
import { BaseRetriever } from "@langchain/core/retrievers";
import { BaseDocumentCompressor } from "@langchain/core/retrievers/document_compressors";
import { Document } from "@langchain/core/documents";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda, RunnablePassthrough, RunnableSequence } from "@langchain/core/runnables";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { ContextualCompressionRetriever } from "@langchain/classic/retrievers/contextual_compression";
import { CallbackHandler } from "@langfuse/langchain";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { OTLPTraceExporter as JSONExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { data, keywordSearch, rerankScore, pack, deliveries } from "../rag.mjs";

const [kind, system] = process.argv.slice(2);
const baseUrl = process.env.LANGFUSE_BASE_URL;
if (!["langfuse", "json", "proto"].includes(kind) || !system || !baseUrl) {
  console.error("usage: LANGFUSE_BASE_URL=URL node pipeline.mjs langfuse|json|proto SYSTEM");
  process.exit(2);
}

// Count what the exporter could not deliver: the run fails on any.
const delivery = deliveries();
const exporter = {
  langfuse: () => undefined,
  json: () => new JSONExporter({ url: `${baseUrl}/v1/traces`, timeoutMillis: 10000 }),
  proto: () => new ProtoExporter({ url: `${baseUrl}/v1/traces`, timeoutMillis: 10000 }),
}[kind]();
const processor = new LangfuseSpanProcessor({
  exporter: exporter && delivery.wrap(exporter),
  baseUrl,
  publicKey: process.env.LANGFUSE_PUBLIC_KEY ?? "pk-lf-local",
  secretKey: process.env.LANGFUSE_SECRET_KEY ?? "sk-lf-local",
  exportMode: "batched",
  flushAt: 8,
  flushInterval: 0.05,
  mediaUploadEnabled: false,
});
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ "service.name": system }),
  spanProcessors: [processor],
});
provider.register();

const corpus = new Map(data.passages.map((p) => [p.metadata.id, p]));
const toDocument = (p, extra = {}) => new Document({ id: p.metadata.id, pageContent: p.text, metadata: { ...p.metadata, ...extra } });

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

// The reranker is a document compressor: its scores go into each
// document's metadata.relevanceScore, as LangChain's rerankers do.
class KeywordReranker extends BaseDocumentCompressor {
  constructor(k) {
    super();
    this.k = k;
  }
  async compressDocuments(docs, query) {
    return docs
      .map((doc, i) => ({ doc, i, score: rerankScore(query, doc.metadata.id, doc.pageContent) }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, this.k)
      .map(({ doc, score }) => toDocument(corpus.get(doc.metadata.id), { relevanceScore: score }));
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
const retriever = new ContextualCompressionRetriever({
  baseRetriever: new KeywordRetriever(4),
  baseCompressor: new KeywordReranker(3),
});
const chain = RunnableSequence.from([
  { context: retriever.pipe(packer), question: new RunnablePassthrough() },
  prompt,
  new FakeListChatModel({ responses: data.queries.map((q) => q.answer) }),
  new StringOutputParser(),
]).withConfig({ runName: "rag" });
const langfuse = new CallbackHandler();
for (const q of data.queries) {
  const answer = await chain.invoke(q.text, { callbacks: [langfuse], metadata: { query_id: q.id } });
  if (answer !== q.answer) throw new Error(`query ${q.id}: answer ${answer}`);
}
try {
  await provider.forceFlush();
  await provider.shutdown();
} catch (err) {
  // The SDK's own exporter reports what it could not deliver here.
  console.error("export failed:", err?.message ?? err);
  delivery.failed++;
}
console.log(`${data.queries.length} queries traced as ${system} and exported (${kind})`);
if (delivery.failed) {
  console.error("the export failed");
  process.exit(1);
}

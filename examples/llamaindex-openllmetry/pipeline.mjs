// A retrieval-augmented generation pipeline built from LlamaIndex.TS parts,
// traced by OpenLLMetry (@traceloop/node-server-sdk) and exported over OTLP
// to the endpoint in OTEL_EXPORTER_OTLP_ENDPOINT.
//
//   OTEL_EXPORTER_OTLP_ENDPOINT=URL node pipeline.mjs json|proto|grpc SYSTEM
//
// runs every query of ../data.json once as the system SYSTEM (the
// resource's service.name). json is the OTLP/HTTP JSON exporter, one request
// per span as each span ends; proto the OTLP/HTTP protobuf exporter and grpc
// the OTLP/gRPC one, both batched.
//
// The pipeline: a keyword retriever (top 4 by the number of distinct query
// terms a passage holds), a reranking node postprocessor (top 3 by terms
// plus the passage's quality prior), a packing postprocessor that fits the
// passages into a budget of tokens and cuts the one that does not fit, the
// "compact" response synthesizer and an OpenAI chat model that talks to a
// fake OpenAI-compatible server on loopback.
//
// What to copy into an application of your own: OpenLLMetry traces the
// retrievers, query engines, synthesizers and chat models LlamaIndex
// exports, not node postprocessors nor retrievers of one's own, so each of
// those runs inside traceloop.withTask; the query id travels as an
// association property (traceloop.association.properties.query_id on
// every span), and the packer's budget in its task's input.
import * as traceloop from "@traceloop/node-server-sdk";
import * as llamaindex from "llamaindex";
import * as llamaindexOpenAI from "@llamaindex/openai";
import { OTLPTraceExporter as JSONExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as GRPCExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { data, keywordSearch, rerankScore, pack, fakeOpenAI, deliveries } from "../rag.mjs";

const { BaseRetriever, RetrieverQueryEngine, TextNode, getResponseSynthesizer } = llamaindex;
const [kind, system] = process.argv.slice(2);
const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
if (!["json", "proto", "grpc"].includes(kind) || !system || !endpoint) {
  console.error("usage: OTEL_EXPORTER_OTLP_ENDPOINT=URL node pipeline.mjs json|proto|grpc SYSTEM");
  process.exit(2);
}

// Count what the exporter could not deliver: the run fails on any.
const delivery = deliveries();
const exporter = {
  json: () => new JSONExporter({ url: `${endpoint}/v1/traces`, timeoutMillis: 10000 }),
  proto: () => new ProtoExporter({ url: `${endpoint}/v1/traces`, timeoutMillis: 10000 }),
  grpc: () => new GRPCExporter({ url: endpoint, timeoutMillis: 10000 }),
}[kind]();

traceloop.initialize({
  appName: system,
  exporter: delivery.wrap(exporter),
  disableBatch: kind === "json",
  instrumentModules: { llamaIndex: llamaindex, llamaIndexOpenAI: llamaindexOpenAI },
  silenceInitializationMessage: true,
  traceloopSyncEnabled: false,
});

const nodes = new Map(data.passages.map((p) => [p.metadata.id, new TextNode({
  id_: p.metadata.id, text: p.text, metadata: p.metadata,
  excludedLlmMetadataKeys: Object.keys(p.metadata), excludedEmbedMetadataKeys: Object.keys(p.metadata),
})]));

// OpenLLMetry traces the retrievers LlamaIndex exports (a vector index's
// retriever is vector_index_retriever.retrieve), not a subclass of
// BaseRetriever of one's own: its search runs inside traceloop.withTask.
class KeywordRetriever extends BaseRetriever {
  constructor(k) {
    super();
    this.k = k;
  }
  _retrieve({ query }) {
    return traceloop.withTask({ name: "keyword_retriever" }, async (query) =>
      keywordSearch(query, this.k).map(({ passage, score }) => ({ node: nodes.get(passage.metadata.id), score })), query);
  }
}

// Node postprocessors run inside traceloop.withTask, which records their
// input and output (NodeWithScore[]) as traceloop.entity.input and .output.
const rerank = {
  postprocessNodes: (found, query) => traceloop.withTask({ name: "rerank" }, async (found, query) =>
    found
      .map((n, i) => ({ n, i, score: rerankScore(query, n.node.id_, n.node.text) }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, 3)
      .map(({ n, score }) => ({ node: n.node, score })), found, query),
};
const packer = {
  postprocessNodes: (ranked) => traceloop.withTask({ name: "pack" }, async ({ nodes: ranked }) =>
    pack(ranked.map((n) => n.node.text)).map((text, i) => ({
      node: text === ranked[i].node.text ? ranked[i].node : new TextNode({ ...ranked[i].node, text }),
      score: ranked[i].score,
    })), { nodes: ranked, budget_tokens: data.budget_tokens }),
};

const server = await fakeOpenAI();
const llm = new llamaindexOpenAI.OpenAI({ model: "fake-chat", apiKey: "none", baseURL: server.url, temperature: 0 });
const engine = new RetrieverQueryEngine(new KeywordRetriever(4), getResponseSynthesizer("compact", { llm }), [rerank, packer]);
for (const q of data.queries) {
  const res = await traceloop.withAssociationProperties({ query_id: q.id }, () => engine.query({ query: q.text }));
  if (res.toString() !== q.answer) throw new Error(`query ${q.id}: answer ${res}`);
}
await traceloop.forceFlush();
await exporter.shutdown();
await server.close();
console.log(`${data.queries.length} queries traced as ${system} and exported (${kind})`);
if (delivery.failed) {
  console.error("the export failed");
  process.exit(1);
}

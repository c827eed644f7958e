// Writes the Parquet fixtures of parquetio's tests with a second Parquet
// implementation, hyparquet-writer 0.17.0 (npm), and the same rows as TREC
// text beside them: a run of three queries, 40 items each, with tied and
// fractional scores (hyparquet-run.parquet, run.txt), and their judgments
// (hyparquet-qrels.parquet, qrels.txt).
//
//   npm install hyparquet-writer@0.17.0 && node hyparquet.mjs
import { writeFileSync } from 'node:fs'
import { parquetWriteFile } from 'hyparquet-writer'

const run = []
const qrels = []
for (const q of ['q1', 'q2', 'q3']) {
  for (let i = 0; i < 40; i++) {
    // Written out of rank order, some scores tied, some long fractions.
    const item = `${q}-d${(i * 7) % 40}`
    run.push([q, item, i + 1, Math.floor((40 - i) / 3) + (i % 5) / 7])
    if (i % 3 === 0) qrels.push([q, item, i % 4])
  }
}
run.reverse()
writeFileSync('run.txt', run.map(([q, item, rank, score]) => `${q} Q0 ${item} ${rank} ${score} hyparquet\n`).join(''))
writeFileSync('qrels.txt', qrels.map(([q, item, grade]) => `${q} 0 ${item} ${grade}\n`).join(''))
parquetWriteFile({
  filename: 'hyparquet-run.parquet',
  columnData: [
    { name: 'query', data: run.map((r) => r[0]), type: 'STRING' },
    { name: 'item', data: run.map((r) => r[1]), type: 'STRING' },
    { name: 'rank', data: run.map((r) => r[2]), type: 'INT32' },
    { name: 'score', data: run.map((r) => r[3]), type: 'DOUBLE' },
  ],
})
parquetWriteFile({
  filename: 'hyparquet-qrels.parquet',
  columnData: [
    { name: 'query', data: qrels.map((r) => r[0]), type: 'STRING' },
    { name: 'item', data: qrels.map((r) => r[1]), type: 'STRING' },
    { name: 'grade', data: qrels.map((r) => BigInt(r[2])), type: 'INT64' },
  ],
})

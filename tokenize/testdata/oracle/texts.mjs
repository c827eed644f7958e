// Deterministic generators for the texts the tokenizers are checked on.
// Everything here is written for these tests (no third-party text), and the
// same seed always gives the same texts, so golden files can be regenerated
// and compared byte for byte.

// rng returns a seeded pseudo-random generator (mulberry32).
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (xs) => xs[int(xs.length)];
  return { next, int, pick };
}

const words = (
  "the of and to in is was for on that with as by at from it be this are or an which " +
  "retrieval passage context budget token answer query system policy refund clearance item " +
  "return window days customer order invoice store manager report evidence judge rank score " +
  "model prompt reader corpus document revision tenant scope stale valid final sale exception " +
  "general first second third number value result measure metric recall precision cutoff " +
  "stage pipeline candidate reranker packing truncated dropped delivered missing support fact " +
  "claim sentence paragraph section chapter table figure appendix note summary example case " +
  "river mountain garden window kitchen morning evening winter summer autumn spring harbour " +
  "library museum station village market bridge forest meadow island valley coast lighthouse " +
  "quickly slowly carefully rarely often never always sometimes perhaps certainly nearly " +
  "bright quiet ancient modern simple complex narrow broad gentle sudden steady hollow " +
  "walk write read build measure carry follow gather listen remember travel wonder explain"
).split(" ");

const names = ["Alice", "Bob", "Carol", "Dmitri", "Émile", "Zoë", "O'Brien", "McAllister", "NASA", "OpenAPI", "iPhone", "JSONDecoder", "Åsa", "Łukasz", "Nguyễn", "São Paulo"];

const contractions = ["don't", "It's", "we'RE", "I'LL", "she'd", "they've", "I'm", "y'all", "'s", "'T", "rock 'n' roll", "can't've", "o'clock", "Dogs'", "it'S", "WE'D", "'ll"];

const numbers = ["0", "7", "42", "123", "1234", "12345678", "3.14159", "1,000,000", "2026-06-01", "+1 (555) 010-9999", "0x1F", "1e-9", "99.9%", "٣٤٥٦", "१२३", "①②③", "½", "１２３４", "x²", "Ⅻ", "007", "100000000000000000000000000000000000000000000000000"];

const spaces = [" ", "  ", "   ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r\n\r\n", "\n   \n", " \n ", "\u00a0", "\u3000", "\u2009", "\u2028", "\u000b", "\f", "\u0085", "    ", " \t \t", "\r"];

const punctuation = ["...", "!?", "—", "–", "«", "»", "“", "”", "‘", "’", "¿", "¡", "()", "[]", "{}", "@#$%^&*", "、", "。", "！", "？", "•", "§", "©", "®", "™", "±", "×", "÷", "€", "$", "£", "¥", "::", "->", "=>", "!==", "/**/", "---", "___", "~", "`", "\\", "|", "\"", "'", ";", ":", ",", ".", "?", "!", "¶", "‰", "†", "‽", "''", "'''"];

const code = [
  "func main() {\n\tfmt.Println(\"hello, world\")\n}",
  "def f(x):\n    return x ** 2  # square\n",
  "const y = a?.b ?? [1, 2, 3].map((v) => v * 2);",
  "{\"id\": \"policy#2\", \"score\": 12.5, \"tags\": [\"a\", \"b\"]}",
  "<div class=\"note\">Hi &amp; bye</div>",
  "SELECT id, COUNT(*) FROM runs WHERE score >= 0.5 GROUP BY id;",
  "#include <stdio.h>\nint main(void) { return 0; }",
  "https://example.com/a/b?x=1&y=2#frag",
  "mailto:someone@example.org",
  "if (i < n && j != 0) { i += 1; } else { i--; }",
  "    indented_line = True\n        deeper = None",
  "x_1 = y__2 - _z3",
  "let s = `template ${value}`;",
  "C:\\Users\\name\\file.txt",
  "$ go test ./... -run TestX -count=1",
  "fn main() -> Result<(), Box<dyn Error>> { Ok(()) }",
];

const scripts = [
  "我们今天去公园散步。", "你好，世界", "中文字符测试", "漢字と仮名", "こんにちは、世界！", "カタカナ", "ひらがな",
  "안녕하세요 세계", "한국어", "مرحبا بالعالم", "السلام عليكم", "שלום עולם", "עברית", "\u200fRTL\u200e",
  "Привет, мир", "Ελληνικά", "ΣΊΣΥΦΟΣ", "ὀδυσσεύς", "नमस्ते दुनिया", "हिन्दी", "สวัสดีชาวโลก", "ภาษาไทย",
  "Tiếng Việt", "ქართული", "Հայերեն", "አማርኛ", "ᏣᎳᎩ", "ꦗꦮ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𝐁𝐨𝐥𝐝", "Ｈｅｌｌｏ", "ﬁnance", "ℌ", "㎏", "ǅ",
];

const accented = ["café", "naïve", "Ångström", "Straße", "İstanbul", "ıi", "résumé", "Crème brûlée", "piñata", "Øre", "façade", "Æsir", "ĳ", "Ǆemal", "e\u0301", "a\u0308", "n\u0303o", "Z\u0351\u036b\u0343\u036a\u0302", "o\u0308\u0304", "\u0301start", "A\u030a", "Cafe\u0301"];

const emoji = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "❤️", "🏳️‍🌈", "1️⃣", "✨", "🤖", "🙂🙃", "☕", "🍕🍕🍕", "👩🏻‍💻", "🥰", "🫠", "🧑‍🚀", "⌚", "♻️", "🀄", "🃏"];

const controls = ["\u0000", "\u0001", "\u0007", "\u007f", "\u00ad", "\ufeff", "\ufffd", "\ue000", "\u{10fffd}", "\u200b", "\u200d", "\u2060", "\u0600", "\u{e0001}", "\u034f"];

const specials = ["<|endoftext|>", "<s>", "</s>", "[CLS]", "[SEP]", "[MASK]", "[PAD]", "<unk>", "[UNK]", "<pad>", "<|begin_of_text|>", "<|eot_id|>", "<|endof", "< s >", "<s><s>", "[cls]", " [MASK] ", "<|fim_prefix|>", "<mask>", "<|im_start|>"];

function longWord(r) {
  const base = r.pick(["a", "ab", "xyz", "na", "ö", "字", "😀", "-", "0", " ", "\n", "ab1", "é"]);
  return base.repeat(20 + r.int(120));
}

function sentence(r, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    let w = r.pick(words);
    const roll = r.int(20);
    if (roll === 0) w = w.toUpperCase();
    else if (roll < 3) w = w[0].toUpperCase() + w.slice(1);
    else if (roll === 3) w = r.pick(names);
    else if (roll === 4) w = r.pick(numbers);
    out.push(w);
  }
  return out.join(" ") + r.pick([".", ".", ",", "!", "?", ";", ":", ""]);
}

const categories = [
  (r) => sentence(r, 3 + r.int(12)),
  (r) => r.pick(contractions),
  (r) => r.pick(numbers),
  (r) => r.pick(spaces),
  (r) => r.pick(punctuation),
  (r) => r.pick(code),
  (r) => r.pick(scripts),
  (r) => r.pick(accented),
  (r) => r.pick(emoji),
  (r) => r.pick(controls),
  (r) => r.pick(specials),
  (r) => longWord(r),
  (r) => r.pick(words) + r.pick(punctuation) + r.pick(words),
  (r) => r.pick(names) + r.pick(contractions),
];

const separators = [" ", " ", " ", "", "\n", "  ", "\t", "\r\n", "\n\n", "\n   \n", "   "];

const edgeCases = [
  "", " ", "  ", "\n", "\n   \n", "\t", "\r\n", "a", "A", "  leading spaces", "trailing spaces   ",
  "\n\nleading newlines", "trailing newlines\n\n", "tabs\tin\tthe\tmiddle", "CRLF\r\nline\r\n",
  "mixed \t\n \r\n whitespace", "   \n   ", "\u00a0", "x\u00a0\u00a0y", "'", "''", "'s", "it's", "IT'S",
  "hello world", "Hello World", "HELLO WORLD", "hello  world", "hello\nworld", "hello \nworld",
  "1", "12", "123", "1234", "12345", "123456789012", "a1b2c3", "v1.2.3", "$100.00",
  "...", "!!!", "?!?!", "😀", "😀😀", "👨‍👩‍👧‍👦", "中", "中文", "é", "e\u0301", "İ", "ß", "ΣΑΣ",
  "<s>", "</s>", "<s>hello</s>", "[CLS] x [SEP]", "<|endoftext|>", "a<|endoftext|>b", "  <s>  ",
  "\u0000", "\ufeff", "\u200b", "\ufffd", "a\u0300\u0301\u0302\u0303",
];

// mixedTexts returns count varied texts: the edge cases first, then mixes
// of 1 to 12 segments of every category, joined by varied separators.
export function mixedTexts(seed, count) {
  const r = rng(seed);
  const out = edgeCases.slice(0, count);
  while (out.length < count) {
    const n = 1 + r.int(12);
    let s = "";
    for (let i = 0; i < n; i++) {
      if (i > 0) s += r.pick(separators);
      s += r.pick(categories)(r);
    }
    if (r.int(8) === 0) s = r.pick(spaces) + s;
    if (r.int(8) === 0) s += r.pick(spaces);
    out.push(s);
  }
  return out;
}

// passages returns count English-like passages of about size bytes each,
// the kind of text a retrieval system packs into a prompt.
export function passages(seed, count, size) {
  const r = rng(seed);
  const out = [];
  for (let p = 0; p < count; p++) {
    let s = "";
    while (Buffer.byteLength(s) < size) {
      s += (s ? " " : "") + sentence(r, 6 + r.int(18));
      if (r.int(10) === 0) s += "\n\n";
    }
    out.push(s);
  }
  return out;
}

// trainingText returns a corpus to train the fixture tokenizers on: the
// English-like sentences plus every other category, so each script and
// symbol in the test texts has a chance to be learnt.
export function trainingText(seed, lines) {
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < lines; i++) {
    const parts = [sentence(r, 5 + r.int(20))];
    for (let j = r.int(4); j > 0; j--) parts.push(r.pick(categories)(r));
    out.push(parts.join(" "));
  }
  return out.join("\n") + "\n";
}

// runUnits and runLengths make the long runs of one character (or of a
// short unit) a split pattern gives as one piece: spaces, newlines,
// letters, digits, symbols, multi-byte characters.
export const runUnits = [" ", "\n", "\t", "\r\n", "a", "A", "é", "中", "🙂", "0", "!", "=", "ab", "a ", " \n", "+/"];
// (The oracles' byte-pair encoding is quadratic in a piece's length: runs
// of one byte go to 20,000, the others to 4,097 units.)
export const runLengths = [129, 300, 1000, 4097];

// runTexts returns every unit repeated to every length: {unit, n, text}.
export function runTexts() {
  const out = [];
  for (const unit of runUnits) {
    const lengths = Buffer.byteLength(unit) === 1 ? runLengths.concat(20000) : runLengths;
    for (const n of lengths) out.push({ unit, n, text: unit.repeat(n) });
  }
  return out;
}

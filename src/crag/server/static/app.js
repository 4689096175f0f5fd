// crag's web page: ask (streamed over server-sent events), sources with highlighted spans,
// the trace, and documents. Plain JavaScript, no build step, no library: every text from the
// server is written with textContent, never as HTML.
"use strict";

const KEY_STORE = "crag.apiKey";
const state = {
  key: sessionStorage.getItem(KEY_STORE) || "",
  collection: "",
  collections: false, // whether the server offers /v1/collections
  answer: null, // the final answer event
  keyWaiters: [],
  asking: null, // AbortController of the running question
  history: [], // earlier {question, answer} turns, sent with a follow-up
};

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) {
    if (child != null) node.append(child);
  }
  return node;
};

// -- the API --------------------------------------------------------------------------------
function withCollection(path) {
  if (!state.collection) return path;
  const sep = path.includes("?") ? "&" : "?";
  return `${path}${sep}collection=${encodeURIComponent(state.collection)}`;
}

function askForKey(message) {
  const dialog = $("key-dialog");
  $("key-error").textContent = message || "";
  $("key-input").value = "";
  if (!dialog.open) dialog.showModal();
  $("key-input").focus();
  return new Promise((resolve) => state.keyWaiters.push(resolve));
}

async function api(path, options = {}, retried = false) {
  const headers = new Headers(options.headers || {});
  if (state.key) headers.set("Authorization", `Bearer ${state.key}`);
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401 && !retried) {
    $("key-button").hidden = false;
    const wrong = Boolean(state.key);
    state.key = "";
    sessionStorage.removeItem(KEY_STORE);
    await askForKey(wrong ? "That key was not accepted; try again." : "");
    return api(path, options, true);
  }
  if (response.status === 401) {
    return api(path, options, false);
  }
  return response;
}

async function problemText(response) {
  try {
    const body = await response.json();
    return body.detail || body.title || `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

// -- asking ---------------------------------------------------------------------------------
const STAGES = {
  retrieve: "Retrieved",
  rerank: "Reranked",
  evaluate: "Judged",
  refine: "Refined",
  web_search: "Web search",
  generate: "Written",
};

function resetResult() {
  state.answer = null;
  $("result").hidden = false;
  $("result").dataset.state = "asking";
  $("verdict").hidden = true;
  $("verdict").className = "verdict";
  $("refusal").hidden = true;
  $("answer").textContent = "";
  $("answer").className = "answer draft";
  $("answer").dataset.tokens = "0";
  $("sources").textContent = "";
  $("sources-title").hidden = true;
  $("status").textContent = "Thinking…";
  $("progress").textContent = "";
  $("asked-as").hidden = true;
  $("viewer").hidden = true;
  $("trace").hidden = true;
  $("trace-body").textContent = "";
}

function showVerdict(verdict) {
  if (!verdict) return;
  const badge = $("verdict");
  badge.hidden = false;
  badge.textContent = verdict.toUpperCase();
  badge.className = `verdict ${verdict}`;
  badge.title = {
    correct: "A retrieved passage answers the question.",
    ambiguous: "Retrieved passages may answer it; the web was consulted too.",
    incorrect: "No retrieved passage answers it; the web was consulted instead.",
  }[verdict] || "";
}

function onNode(data) {
  const label = STAGES[data.node] || data.node;
  $("progress").append(el("span", { class: "stage", text: label }));
  if (data.node === "evaluate" && data.update && data.update.verdict) {
    showVerdict(data.update.verdict);
  }
}

function onToken(data) {
  const answer = $("answer");
  answer.textContent += data.text;
  answer.dataset.tokens = String(Number(answer.dataset.tokens || 0) + 1);
}

function parseEvents(buffer, handle) {
  // Server-sent events: blocks separated by a blank line; `event:` and `data:` lines.
  let cut;
  while ((cut = buffer.indexOf("\n\n")) >= 0) {
    const block = buffer.slice(0, cut);
    buffer = buffer.slice(cut + 2);
    let name = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      if (line.startsWith("event:")) name = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (data.length) handle(name, JSON.parse(data.join("\n")));
  }
  return buffer;
}

async function ask(question) {
  if (state.asking) state.asking.abort();
  const controller = new AbortController();
  state.asking = controller;
  resetResult();
  $("ask-button").disabled = true;
  const body = {
    question,
    mode: $("mode").value,
    stream: true,
    options: { trace: true },
  };
  if (state.collection) body.collection = state.collection;
  if ($("followup").checked && state.history.length) body.history = state.history.slice(-3);
  state.typed = question;
  try {
    const response = await api("/v1/ask", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!response.ok) {
      showError(await problemText(response));
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer = parseEvents(buffer + decoder.decode(value, { stream: true }), (name, data) => {
        if (name === "node") onNode(data);
        else if (name === "rewrite") showAskedAs(data.question, data.original);
        else if (name === "token") onToken(data);
        else if (name === "answer") showAnswer(data);
        else if (name === "error") showError(data.detail || data.title || "the question failed");
      });
    }
    if (!state.answer && !$("result").classList.contains("failed")) {
      showError("the answer stream ended early; ask again");
    }
  } catch (err) {
    if (err.name !== "AbortError") showError(String(err.message || err));
  } finally {
    if (state.asking === controller) state.asking = null;
    $("ask-button").disabled = false;
  }
}

function showAskedAs(question, original) {
  const line = $("asked-as");
  line.hidden = question === original;
  line.textContent = question === original ? "" : `Asked as: ${question}`;
}

function showError(message) {
  $("result").hidden = false;
  $("result").classList.add("failed");
  $("result").dataset.state = "failed";
  $("status").textContent = "";
  $("answer").className = "answer error";
  $("answer").textContent = `Error: ${message}`;
}

function answerNodes(text, citations) {
  // The answer's text with every [n] turned into a button that opens source n.
  const known = new Set(citations.map((c) => c.n));
  const parts = [];
  const mark = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
  let last = 0;
  let m;
  while ((m = mark.exec(text))) {
    parts.push(document.createTextNode(text.slice(last, m.index)));
    for (const n of m[1].split(/\s*,\s*/).map(Number)) {
      if (known.has(n)) {
        parts.push(
          el("button", {
            type: "button",
            class: "cite",
            "data-n": String(n),
            "aria-label": `Show source ${n}`,
            text: `[${n}]`,
            onclick: () => openSource(n),
          }),
        );
      } else {
        parts.push(document.createTextNode(`[${n}]`));
      }
    }
    last = m.index + m[0].length;
  }
  parts.push(document.createTextNode(text.slice(last)));
  return parts;
}

function showAnswer(data) {
  state.answer = data;
  $("result").dataset.state = "answered";
  if (state.typed) showAskedAs(data.question, state.typed);
  if (!data.refused) {
    state.history.push({ question: data.question, answer: data.answer });
    state.history = state.history.slice(-3);
    $("new-conversation").hidden = false;
  }
  $("result").classList.remove("failed");
  $("status").textContent = data.trace ? `${(data.trace.total_ms / 1000).toFixed(1)} s` : "";
  showVerdict(data.verdict);
  const answer = $("answer");
  answer.textContent = "";
  answer.className = "answer";
  if (data.refused) {
    $("refusal").hidden = false;
    $("refusal-text").textContent = data.answer;
    // the refusal usually says why already; the reason is shown when it does not
    const said = data.reason && data.answer.includes(data.reason);
    $("refusal-reason").textContent = data.reason && !said ? `Why: ${data.reason}` : "";
    $("result").classList.add("refused");
  } else {
    $("result").classList.remove("refused");
    answer.append(...answerNodes(data.answer, data.citations));
  }
  const list = $("sources");
  list.textContent = "";
  for (const c of data.citations) {
    const web = c.origin === "web";
    list.append(
      el(
        "li",
        { value: String(c.n) },
        el("button", {
          type: "button",
          class: "cite",
          "data-n": String(c.n),
          "aria-label": `Show source ${c.n}`,
          text: `[${c.n}]`,
          onclick: () => openSource(c.n),
        }),
        " ",
        el("span", { class: `origin ${web ? "web" : "local"}`, text: web ? "web" : "local" }),
        " ",
        el("span", { class: "label", text: c.label }),
      ),
    );
  }
  $("sources-title").hidden = data.citations.length === 0;
  if (data.trace) renderTrace(data.trace);
}

// -- sources and highlighted spans ------------------------------------------------------------
const WORD = /[\p{L}\p{N}]+/gu;
const SUFFIX = 4; // the last answer word may carry a suffix in the source ("Ankara'da")

function fold(word) {
  return word
    .replace(/İ/g, "i")
    .replace(/I/g, "i")
    .replace(/ı/g, "i")
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}/gu, "");
}

function words(text) {
  const out = [];
  for (const m of text.matchAll(WORD)) {
    out.push({ w: fold(m[0]), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

function shortAnswer(sentence) {
  // The text before the first [n] marker or sentence end, as crag's matching takes it.
  const end = sentence.search(/\[\d|[.!?…](\s|$)|\n/);
  return (end >= 0 ? sentence.slice(0, end) : sentence).replace(/\[[\d,\s]+\]/g, " ");
}

function findRun(needle, hay) {
  // Exact run of the needle's words in the haystack (last word may carry a suffix).
  const n = needle.length;
  if (!n) return null;
  for (let i = 0; i + n <= hay.length; i++) {
    let ok = true;
    for (let j = 0; j < n - 1 && ok; j++) ok = hay[i + j].w === needle[j].w;
    if (!ok) continue;
    const last = needle[n - 1].w;
    const word = hay[i + n - 1].w;
    if (word === last || (word.startsWith(last) && word.length - last.length <= SUFFIX)) {
      return [hay[i].start, hay[i + n - 1].end];
    }
  }
  return null;
}

function longestCommon(needle, hay) {
  // The longest run of consecutive words the sentence and the source share.
  let best = 0;
  let at = -1;
  let prev = new Array(hay.length + 1).fill(0);
  for (let i = 1; i <= needle.length; i++) {
    const row = new Array(hay.length + 1).fill(0);
    for (let j = 1; j <= hay.length; j++) {
      if (needle[i - 1].w === hay[j - 1].w) {
        row[j] = prev[j - 1] + 1;
        if (row[j] > best) {
          best = row[j];
          at = j;
        }
      }
    }
    prev = row;
  }
  if (best === 0) return null;
  return { length: best, span: [hay[at - best].start, hay[at - 1].end] };
}

function sentencesCiting(text, n) {
  const pieces = text.split(/(?<=[.!?…])\s+|\n+/);
  const re = new RegExp(`\\[(?:\\d+\\s*,\\s*)*${n}(?:\\s*,\\s*\\d+)*\\]`);
  const citing = pieces.filter((p) => re.test(p));
  return citing.length ? citing : pieces;
}

const STOP = new Set(
  "a an the of in on at to for and or is are was were be by with as it its that this from".split(" "),
);

function supportSpan(answerText, n, sourceText) {
  // Where in the source the answer (the sentence citing [n]) comes from: its short form
  // first, as crag matches it; else the longest run of words they share.
  const hay = words(sourceText);
  const sentences = sentencesCiting(answerText, n);
  for (const s of [answerText, ...sentences]) {
    const span = findRun(words(shortAnswer(s)), hay);
    if (span) return { span, how: "the answer's short form" };
  }
  let best = null;
  for (const s of sentences) {
    const found = longestCommon(words(s.replace(/\[[\d,\s]+\]/g, " ")), hay);
    if (found && (!best || found.length > best.length)) best = found;
  }
  if (!best) return null;
  const text = sourceText.slice(best.span[0], best.span[1]);
  const content = words(text).filter((w) => !STOP.has(w.w));
  if (best.length < 2 || content.length === 0) return null;
  return { span: best.span, how: "the longest passage the answer shares with it" };
}

function stripSpans(sourceText, stripTexts) {
  const spans = [];
  for (const t of stripTexts) {
    const at = sourceText.indexOf(t.trim());
    if (t.trim() && at >= 0) spans.push([at, at + t.trim().length]);
  }
  return spans;
}

function renderHighlighted(container, text, strong, kept) {
  // Text with `kept` spans (the strips the generator read) tinted and `strong` marked.
  const cuts = new Set([0, text.length]);
  for (const [a, b] of [...kept, ...(strong ? [strong] : [])]) {
    cuts.add(a);
    cuts.add(b);
  }
  const points = [...cuts].sort((x, y) => x - y);
  container.textContent = "";
  for (let i = 0; i + 1 < points.length; i++) {
    const [a, b] = [points[i], points[i + 1]];
    const piece = text.slice(a, b);
    const inStrong = strong && a >= strong[0] && b <= strong[1];
    const inKept = kept.some(([x, y]) => a >= x && b <= y);
    if (inStrong) container.append(el("mark", { class: "support", text: piece }));
    else if (inKept) container.append(el("span", { class: "kept", text: piece }));
    else container.append(document.createTextNode(piece));
  }
}

async function sourceText(c, trace) {
  // The whole chunk for an indexed source; the kept strips of the page for a web one.
  if (c.origin === "web") {
    const strips = ((trace && trace.web && trace.web.strips) || []).filter(
      (s) => s.url === c.url && s.kept,
    );
    return { text: strips.map((s) => s.text).join("\n\n… "), strips: [], chunk: null };
  }
  const response = await api(withCollection(`/v1/chunks/${encodeURIComponent(c.chunk_id)}`));
  if (!response.ok) throw new Error(await problemText(response));
  const chunk = await response.json();
  const strips = ((trace && trace.strips) || [])
    .filter((s) => s.chunk_id === c.chunk_id && s.kept)
    .map((s) => s.text);
  return { text: chunk.text, strips, chunk };
}

async function openSource(n) {
  const data = state.answer;
  if (!data) return;
  const c = data.citations.find((x) => x.n === n);
  if (!c) return;
  const viewer = $("viewer");
  viewer.hidden = false;
  viewer.dataset.n = String(n);
  $("viewer-title").textContent = `Source [${n}]`;
  const where = $("viewer-where");
  where.textContent = "";
  const web = c.origin === "web";
  where.append(el("span", { class: `origin ${web ? "web" : "local"}`, text: web ? "web" : "local" }), " ");
  if (web) {
    where.append(el("a", { href: c.url, target: "_blank", rel: "noopener noreferrer", text: c.url }));
  } else {
    where.append(el("span", { text: c.label }));
  }
  $("viewer-text").textContent = "Loading…";
  $("viewer-note").textContent = "";
  viewer.focus();
  try {
    const src = await sourceText(c, data.trace);
    if (!src.text) {
      $("viewer-text").textContent = "(the text of this source is not available)";
      return;
    }
    if (src.chunk) {
      const page = src.chunk.metadata && src.chunk.metadata.page;
      const place = [src.chunk.source, src.chunk.title, page ? `page ${page}` : src.chunk.doc_id]
        .filter(Boolean)
        .join(" › ");
      where.lastChild.textContent = `${place}, characters ${src.chunk.start}–${src.chunk.end}`;
    }
    const found = data.refused ? null : supportSpan(data.answer, n, src.text);
    renderHighlighted($("viewer-text"), src.text, found && found.span, stripSpans(src.text, src.strips));
    $("viewer-note").textContent = found
      ? `Highlighted: ${found.how}. Tinted: the strips the generator read.`
      : "The answer's words were not found verbatim in this source.";
    const mark = $("viewer-text").querySelector("mark");
    if (mark) mark.scrollIntoView({ block: "nearest" });
  } catch (err) {
    $("viewer-text").textContent = `Could not load the source: ${err.message || err}`;
  }
}

// -- the trace ---------------------------------------------------------------------------------
function table(caption, head, rows) {
  const t = el("table", {}, el("caption", { text: caption }));
  t.append(el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const row of rows) {
    const tr = el("tr");
    for (const cell of row.cells) tr.append(el("td", { text: cell == null ? "" : String(cell) }));
    if (row.class) tr.className = row.class;
    body.append(tr);
  }
  t.append(body);
  return el("div", { class: "table-wrap" }, t);
}

const num = (x, d = 3) => (typeof x === "number" ? x.toFixed(d) : x == null ? "–" : String(x));
const clip = (s, n = 160) => (s && s.length > n ? `${s.slice(0, n)}…` : s || "");

function renderTrace(trace) {
  const body = $("trace-body");
  body.textContent = "";
  const facts = el("dl", { class: "facts" });
  const fact = (k, v) => facts.append(el("dt", { text: k }), el("dd", { text: v }));
  fact("Verdict", trace.verdict ? trace.verdict.toUpperCase() : "–");
  if (trace.thresholds && "upper" in trace.thresholds) {
    fact("Thresholds", `correct ≥ ${num(trace.thresholds.upper)}, incorrect < ${num(trace.thresholds.lower)}`);
  }
  fact("Web query", trace.web_query || "(no web search)");
  fact("Total", `${Math.round(trace.total_ms)} ms`);
  body.append(facts);
  if (trace.evaluations && trace.evaluations.length) {
    body.append(
      table(
        "Scores per chunk (retrieval evaluator)",
        ["Score", "Chunk"],
        trace.evaluations.map((e) => ({ cells: [num(e.score), e.cite] })),
      ),
    );
  }
  const strips = (trace.strips || []).map((s) => ({
    class: s.kept ? "kept-row" : "dropped-row",
    cells: [s.kept ? "kept" : "dropped", num(s.score), "local", clip(s.text)],
  }));
  const webStrips = ((trace.web && trace.web.strips) || []).map((s) => ({
    class: s.kept ? "kept-row" : "dropped-row",
    cells: [s.kept ? "kept" : "dropped", num(s.score), s.url, clip(s.text)],
  }));
  if (strips.length || webStrips.length) {
    body.append(table("Strips", ["", "Score", "From", "Text"], [...strips, ...webStrips]));
  }
  if (trace.calls && trace.calls.length) {
    body.append(
      table(
        "Model calls",
        ["Role", "Model", "Purpose", "Tokens in/out", "ms"],
        trace.calls.map((c) => ({
          cells: [c.role, c.model, c.purpose, `${c.prompt_tokens}/${c.completion_tokens}`, Math.round(c.latency_ms)],
        })),
      ),
    );
  }
  const stages = Object.entries(trace.stages_ms || {});
  if (stages.length) {
    body.append(
      table("Stage times", ["Stage", "ms"], stages.map(([k, v]) => ({ cells: [k, Math.round(v)] }))),
    );
  }
  if (trace.notes && trace.notes.length) {
    body.append(el("h4", { text: "Notes" }), el("ul", {}, ...trace.notes.map((n) => el("li", { text: n }))));
  }
  $("trace").hidden = false;
}

// -- documents -------------------------------------------------------------------------------
async function loadDocuments() {
  const response = await api(withCollection("/v1/documents"));
  const list = $("documents");
  if (!response.ok) {
    $("docs-summary").textContent = await problemText(response);
    return;
  }
  const data = await response.json();
  list.textContent = "";
  const option = [...$("collection").options].find((o) => o.value === data.collection);
  if (option) option.textContent = `${data.collection} (${data.chunks} chunk${data.chunks === 1 ? "" : "s"})`;
  $("docs-summary").textContent =
    `${data.total} source${data.total === 1 ? "" : "s"}, ${data.chunks} chunk${data.chunks === 1 ? "" : "s"} in “${data.collection}”`;
  for (const s of data.sources) {
    list.append(
      el(
        "li",
        { "data-source": s.source },
        el("span", { class: "doc-name", text: s.source }),
        el("span", {
          class: "note",
          text: ` ${s.chunks} chunk${s.chunks === 1 ? "" : "s"}${s.state === "done" ? "" : `, ${s.state}`}`,
        }),
        el("button", {
          type: "button",
          class: "quiet danger",
          "aria-label": `Delete ${s.source}`,
          text: "Delete",
          onclick: () => removeDocument(s.source),
        }),
      ),
    );
  }
}

async function removeDocument(source) {
  if (!window.confirm(`Delete ${source} from the index?`)) return;
  const response = await api(withCollection(`/v1/documents/${encodeURIComponent(source)}`), {
    method: "DELETE",
  });
  if (response.status === 202) {
    const job = await response.json();
    await followJob(job, `Deleting ${source}`);
  } else if (!response.ok) {
    $("docs-summary").textContent = await problemText(response);
  }
  await loadDocuments();
}

function jobLine(job) {
  const p = job.progress || {};
  const parts = [`${job.state}`];
  if (p.files_total) parts.push(`files ${p.files_done}/${p.files_total}`);
  if (p.chunks_total) parts.push(`chunks ${p.chunks_done}/${p.chunks_total}`);
  if (job.error) parts.push(job.error);
  if (job.result && job.result.failed && job.result.failed.length) {
    parts.push(job.result.failed.map((f) => `${f.source}: ${f.reason}`).join("; "));
  }
  return parts.join(" · ");
}

async function followJob(job, title) {
  const item = el("li", { class: "job" }, el("strong", { text: title }), " ");
  const line = el("span", { class: "job-state", text: jobLine(job) });
  const bar = el("progress", { max: "1", value: "0" });
  item.append(line, bar);
  $("jobs").prepend(item);
  while (job.state === "queued" || job.state === "running") {
    await new Promise((r) => setTimeout(r, 400));
    const response = await api(withCollection(`/v1/documents/jobs/${job.id}`));
    if (!response.ok) break;
    job = await response.json();
    const p = job.progress || {};
    line.textContent = jobLine(job);
    bar.max = String(p.chunks_total || p.files_total || 1);
    bar.value = String(p.chunks_total ? p.chunks_done : p.files_done || 0);
  }
  item.classList.add(job.state === "failed" ? "failed" : "done");
  bar.max = "1";
  bar.value = "1";
  line.textContent = jobLine(job);
  return job;
}

async function upload(files) {
  if (!files.length) return;
  const form = new FormData();
  for (const f of files) form.append("files", f, f.name);
  const names = [...files].map((f) => f.name).join(", ");
  const response = await api(withCollection("/v1/documents"), { method: "POST", body: form });
  if (!response.ok) {
    $("jobs").prepend(el("li", { class: "job failed", text: `${names}: ${await problemText(response)}` }));
    return;
  }
  await followJob(await response.json(), `Uploading ${names}`);
  await loadDocuments();
}

// -- collections -----------------------------------------------------------------------------
async function loadCollections() {
  const response = await api("/v1/collections");
  if (response.status === 404) return; // a server without collections
  if (!response.ok) return;
  const data = await response.json();
  const select = $("collection");
  select.textContent = "";
  for (const c of data.collections) {
    select.append(el("option", { value: c.name, text: `${c.name} (${c.chunks} chunk${c.chunks === 1 ? "" : "s"})` }));
  }
  const stored = sessionStorage.getItem("crag.collection");
  const names = data.collections.map((c) => c.name);
  state.collection = names.includes(stored) ? stored : data.default;
  select.value = state.collection;
  state.collections = true;
  $("collection-field").hidden = false;
  $("new-collection").hidden = false;
}

async function newCollection() {
  const name = (window.prompt("Name of the new collection (letters, digits, _ . -)") || "").trim();
  if (!name) return;
  const response = await api("/v1/collections", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name }),
  });
  if (!response.ok) {
    $("docs-summary").textContent = await problemText(response);
    return;
  }
  sessionStorage.setItem("crag.collection", name);
  await refresh();
}

// -- wiring ----------------------------------------------------------------------------------
function wire() {
  $("ask-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = $("question").value.trim();
    if (q) ask(q);
  });
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  $("viewer-close").addEventListener("click", () => {
    const n = $("viewer").dataset.n;
    $("viewer").hidden = true;
    const back = document.querySelector(`#answer .cite[data-n="${n}"], #sources .cite[data-n="${n}"]`);
    if (back) back.focus();
  });
  $("viewer").addEventListener("keydown", (e) => {
    if (e.key === "Escape") $("viewer-close").click();
  });
  $("key-form").addEventListener("submit", () => {
    const key = $("key-input").value.trim();
    if (!key) return;
    state.key = key;
    sessionStorage.setItem(KEY_STORE, key);
    const waiters = state.keyWaiters.splice(0);
    for (const resolve of waiters) resolve();
  });
  $("key-dialog").addEventListener("cancel", (e) => e.preventDefault());
  $("key-button").addEventListener("click", () => {
    askForKey("").then(() => refresh());
  });
  $("new-collection").addEventListener("click", () => newCollection());
  $("new-conversation").addEventListener("click", () => {
    state.history = [];
    $("followup").checked = false;
    $("new-conversation").hidden = true;
  });
  $("collection").addEventListener("change", () => {
    state.collection = $("collection").value;
    sessionStorage.setItem("crag.collection", state.collection);
    state.history = [];
    $("result").hidden = true;
    $("viewer").hidden = true;
    $("trace").hidden = true;
    loadDocuments();
  });
  const drop = $("drop");
  for (const name of ["dragenter", "dragover"]) {
    drop.addEventListener(name, (e) => {
      e.preventDefault();
      drop.classList.add("over");
    });
  }
  for (const name of ["dragleave", "drop"]) {
    drop.addEventListener(name, () => drop.classList.remove("over"));
  }
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    upload([...e.dataTransfer.files]);
  });
  $("files").addEventListener("change", () => {
    const files = [...$("files").files];
    $("files").value = "";
    upload(files);
  });
}

async function refresh() {
  await loadCollections();
  await loadDocuments();
}

wire();
if (state.key) $("key-button").hidden = false;
refresh();

// The console page: one WebSocket to the node, no build step, no outside resources.
// Text frames are JSON messages ({"type": ...}); binary frames are audio: a
// little-endian u32 sample rate, then little-endian f32 mono samples.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { ws: null, lines: new Map(), listen: false, audioCtx: null, playAt: 0,
  mic: { wanted: false, granted: false, ctx: null, stream: null, node: null }, latency: null };

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws`);
  ws.binaryType = "arraybuffer";
  state.ws = ws;
  ws.onopen = () => {
    setConnection(true);
    if (state.listen) send({ type: "listen", on: true });
  };
  ws.onclose = () => {
    setConnection(false);
    state.mic.granted = false;
    setTimeout(connect, 1000);
  };
  ws.onmessage = (event) => {
    if (typeof event.data === "string") {
      let message;
      try { message = JSON.parse(event.data); } catch (_) { return; }
      handle(message);
    } else {
      playFrame(event.data);
    }
  };
}

function setConnection(on) {
  const badge = $("connection");
  badge.textContent = on ? "live" : "disconnected";
  badge.className = "badge " + (on ? "on" : "off");
}

function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(message));
}

function handle(m) {
  switch (m.type) {
    case "hello": $("transcript").textContent = ""; state.lines.clear(); break;
    case "line": showLine(m); break;
    case "speaking": showSpeaking(m); break;
    case "level": showLevel(m); break;
    case "policy": showPolicy(m); break;
    case "board": showBoard(m); break;
    case "latency": showLatency(m); break;
    case "stats": showStats(m); break;
    case "mic": micAnswer(m); break;
    case "mic_state":
      $("mic-state").textContent = m.held ? "microphone held by a page" : "microphone free";
      if (!m.held) $("level-human").style.width = "0";
      break;
    case "sent": notice(`sent as the human: “${m.text}”`); break;
    case "notice": notice(m.text); break;
    default: break;
  }
}

function notice(text) { $("notice").textContent = text; }

function showLine(m) {
  const box = $("transcript");
  const stick = box.scrollTop + box.clientHeight >= box.scrollHeight - 30;
  let el = state.lines.get(m.seq);
  if (!el) {
    el = document.createElement("div");
    state.lines.set(m.seq, el);
    box.appendChild(el);
  }
  el.className = `line kind-${m.kind}`;
  el.dataset.seq = m.seq;
  el.dataset.kind = m.kind;
  el.dataset.speaker = m.speaker || "";
  if (m.question_id !== null && m.question_id !== undefined) el.dataset.questionId = m.question_id;
  el.dataset.interrupted = m.interrupted ? "true" : "false";
  el.textContent = "";
  if (m.speaker) {
    const who = document.createElement("span");
    who.className = "speaker";
    who.textContent = m.speaker;
    el.appendChild(who);
  }
  const text = document.createElement("span");
  text.className = "text";
  if (m.played !== null && m.played !== undefined) {
    const played = document.createElement("span");
    played.className = "played";
    played.textContent = m.played;
    text.appendChild(played);
    if (m.cut) {
      const cut = document.createElement("del");
      cut.className = "cut";
      cut.textContent = m.cut;
      text.appendChild(cut);
    } else if (m.text.length > m.played.length && !m.interrupted) {
      text.appendChild(document.createTextNode(m.text.slice(m.played.length)));
    }
  } else {
    text.textContent = m.text;
  }
  el.appendChild(text);
  if (m.interrupted) {
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.textContent = "interrupted";
    el.appendChild(mark);
  }
  if (stick) box.scrollTop = box.scrollHeight;
}

function showSpeaking(m) {
  $("now").textContent = m.now || "—";
  $("next").textContent = m.next || "—";
  $("human-speaking").hidden = !m.human_speaking;
  if (!m.now) $("level-voice").style.width = "0";
}

function showLevel(m) {
  const width = Math.min(100, Math.sqrt(m.rms) * 250);
  $(m.source === "human" ? "level-human" : "level-voice").style.width = `${width.toFixed(1)}%`;
}

function pct(x) { return `${(x * 100).toFixed(1)}%`; }

function showPolicy(m) {
  const s = m.status;
  $("mode").textContent = s ? s.mode : "—";
  $("cycle").textContent = s ? s.cycle : "—";
  $("phase").textContent = m.phase || "—";
  $("last-decision").textContent = m.last_decision || (s && s.current_speaker ? `turn → ${s.current_speaker}` : "—");
  const bars = $("bars");
  bars.textContent = "";
  for (const b of (s ? s.bars : [])) {
    const row = document.createElement("div");
    row.className = "bar" + (b.absent ? " absent" : "");
    row.dataset.name = b.name;
    row.dataset.share = b.share;
    row.dataset.target = b.target === null ? "priority" : b.target;
    row.dataset.words = b.words;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = b.name;
    const track = document.createElement("span");
    track.className = "track";
    const fill = document.createElement("span");
    fill.className = "fill";
    fill.style.width = pct(b.share);
    track.appendChild(fill);
    if (b.target !== null) {
      const target = document.createElement("span");
      target.className = "target";
      target.style.left = pct(b.target);
      track.appendChild(target);
    }
    const nums = document.createElement("span");
    nums.className = "nums";
    nums.textContent = b.target === null ? `${b.words} w · priority` : `${pct(b.share)} / ${pct(b.target)}`;
    row.append(name, track, nums);
    bars.appendChild(row);
  }
  const agents = Object.entries(m.auction || {});
  const table = $("auction");
  table.hidden = agents.length === 0;
  const body = table.querySelector("tbody");
  body.textContent = "";
  for (const [agent, a] of agents) {
    const tr = document.createElement("tr");
    for (const v of [agent, a.tokens ?? "—", a.bid ?? "—"]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

const dash = (v) => (v === null || v === undefined ? "—" : String(v));

function showLatency(m) {
  state.latency = m;
  const body = $("latency").querySelector("tbody");
  body.textContent = "";
  for (const t of m.turns.slice(-12).reverse()) {
    const tr = document.createElement("tr");
    tr.dataset.questionId = t.question_id;
    for (const v of [t.question_id, t.speaker, t.speech_end_to_transcript_ms, t.speech_end_to_first_token_ms,
      t.speech_end_to_first_audio_ms, t.turn_to_first_audio_ms, t.dead_air_ms]) {
      const td = document.createElement("td");
      td.textContent = dash(v);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  const b = m.barge_ins;
  $("barge").textContent = b.length ? b.slice(-5).map((x) => `${x.to_silence_ms} (${x.speaker})`).join(", ") : "—";
  drawChart(m.turns);
}

function drawChart(turns) {
  const canvas = $("latency-chart");
  const g = canvas.getContext("2d");
  g.clearRect(0, 0, canvas.width, canvas.height);
  const shown = turns.slice(-20);
  const max = Math.max(1, ...shown.flatMap((t) => [t.turn_to_first_audio_ms || 0, t.turn_to_first_token_ms || 0, t.dead_air_ms || 0]));
  const w = canvas.width / Math.max(shown.length, 1);
  const h = canvas.height - 14;
  shown.forEach((t, i) => {
    const x = i * w + 2;
    const bar = (v, color, dx, bw) => {
      if (v === null || v === undefined) return;
      const bh = (v / max) * h;
      g.fillStyle = color;
      g.fillRect(x + dx, h - bh, bw, bh);
    };
    const bw = Math.max(2, w / 3 - 2);
    bar(t.turn_to_first_token_ms, "#60a5fa", 0, bw);
    bar(t.turn_to_first_audio_ms, "#1d4ed8", bw, bw);
    bar(t.dead_air_ms, "#f59e0b", 2 * bw, bw);
    g.fillStyle = "#6b7280";
    g.font = "9px sans-serif";
    g.fillText(String(t.question_id), x, canvas.height - 2);
  });
  g.fillStyle = "#6b7280";
  g.fillText(`${max} ms`, canvas.width - 48, 10);
}

function showStats(m) {
  const inputs = Object.entries(m.inputs || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  $("stats").textContent =
    `pages ${m.clients} · listening ${m.listeners} · frames sent ${m.frames_sent} · dropped ${m.frames_dropped}\n` +
    `lines ${m.lines} · rejected page messages ${m.rejected_page_messages} · microphone ${m.mic_held ? "held" : "free"}\n` +
    `inputs: ${inputs || "—"}`;
  $("stats").dataset.dropped = m.frames_dropped;
}

// --- the conversation's audio, played here -------------------------------------------

function toggleListen() {
  state.listen = !state.listen;
  $("btn-listen").setAttribute("aria-pressed", String(state.listen));
  if (state.listen && !state.audioCtx) state.audioCtx = new AudioContext();
  if (state.audioCtx) state.audioCtx.resume();
  send({ type: "listen", on: state.listen });
}

function playFrame(buffer) {
  if (!state.listen || !state.audioCtx || buffer.byteLength < 8) return;
  const rate = new DataView(buffer).getUint32(0, true);
  const samples = new Float32Array(buffer.slice(4));
  const ctx = state.audioCtx;
  const audio = ctx.createBuffer(1, samples.length, rate);
  audio.copyToChannel(samples, 0);
  const source = ctx.createBufferSource();
  source.buffer = audio;
  source.connect(ctx.destination);
  const now = ctx.currentTime;
  if (state.playAt < now + 0.02 || state.playAt > now + 1.0) state.playAt = now + 0.08;
  source.start(state.playAt);
  state.playAt += audio.duration;
}

// --- the microphone: 16 kHz mono f32 over the WebSocket -------------------------------

async function micOn() {
  if (state.mic.wanted) return;
  state.mic.wanted = true;
  try {
    if (!state.mic.stream) {
      state.mic.stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true } });
      const ctx = new AudioContext({ sampleRate: 16000 });
      const source = ctx.createMediaStreamSource(state.mic.stream);
      const node = ctx.createScriptProcessor(2048, 1, 1);
      const mute = ctx.createGain();
      mute.gain.value = 0;
      node.onaudioprocess = (e) => {
        if (!state.mic.wanted || !state.mic.granted) return;
        const input = e.inputBuffer.getChannelData(0);
        const frame = new ArrayBuffer(4 + input.length * 4);
        new DataView(frame).setUint32(0, ctx.sampleRate, true);
        new Float32Array(frame, 4).set(input);
        if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(frame);
      };
      source.connect(node);
      node.connect(mute);
      mute.connect(ctx.destination);
      state.mic.ctx = ctx;
      state.mic.node = node;
    }
    await state.mic.ctx.resume();
    // Released (push-to-talk let go) while the device was opening: ask for nothing.
    if (state.mic.wanted) send({ type: "mic", on: true });
  } catch (err) {
    state.mic.wanted = false;
    notice(`microphone unavailable: ${err.message || err}`);
  }
}

function micOff() {
  if (!state.mic.wanted) return;
  state.mic.wanted = false;
  send({ type: "mic", on: false });
}

function micAnswer(m) {
  state.mic.granted = m.granted;
  $("btn-ptt").classList.toggle("active", m.granted && !openMic());
  $("btn-openmic").setAttribute("aria-pressed", String(m.granted && openMic()));
  if (m.busy) notice("another page holds the microphone");
  if (!m.granted && state.mic.wanted && m.busy) state.mic.wanted = false;
}

let openMicOn = false;
const openMic = () => openMicOn;

// --- the pitch rehearsal: the presenter's board (a rehearsal moderator's `board`) -----

const PHASES = { presenting: "presenting", qa_trigger: "panel called", exchange: "Q&A exchange",
  resolving: "wrapping up", ended: "session over" };

function showBoard(b) {
  const box = $("rehearsal");
  box.hidden = false;
  box.dataset.phase = b.phase;
  document.title = "Pitch rehearsal — console";
  document.querySelector("header h1").textContent = "Pitch rehearsal console";
  // Pause / Resume / Reset / Stats are a conference controller's commands: a rehearsal
  // moderator has its own controls below.
  for (const id of ["btn-pause", "btn-resume", "btn-reset", "btn-stats"]) $(id).hidden = true;
  $("rh-phase").textContent = PHASES[b.phase] || b.phase;
  // Numbered as the deck and the debrief number them (a title slide is #0).
  $("rh-slide-no").textContent = `slide #${b.slide} · ${b.slides} slides`;
  $("rh-slide").dataset.slide = b.slide;
  $("rh-time").textContent = b.phase === "ended" ? "" : `· ${b.minutes_left} min left · ${b.exchanges_logged} exchange(s) logged · ${String(b.mode).replace("_", " ")}, ${b.intensity}`;
  $("rh-title").textContent = b.title;
  const points = $("rh-points");
  points.textContent = "";
  for (const p of b.points || []) {
    const li = document.createElement("li");
    li.textContent = p;
    points.appendChild(li);
  }
  const ex = b.exchange;
  $("rh-exchange").textContent = ex
    ? `exchange ${ex.id} with ${ex.name} on slide #${ex.slide}: turn ${ex.turns} of ${ex.max_turns}` +
      (b.speaking ? ` · ${b.speaking} is asking` : " · your answer")
    : "no exchange under way";
  $("rh-exchange").dataset.turns = ex ? ex.turns : "";
  const hands = $("rh-hands");
  hands.textContent = "";
  for (const h of b.hands || []) {
    const li = document.createElement("li");
    li.className = "hand";
    li.dataset.agent = h.agent;
    li.append(h.name);
    const take = document.createElement("button");
    take.className = "take";
    take.textContent = "Take the question";
    take.disabled = b.phase !== "presenting";
    take.onclick = () => control(`ack ${h.agent}`);
    li.appendChild(take);
    hands.appendChild(li);
  }
  if (!hands.children.length) {
    const li = document.createElement("li");
    li.className = "small none";
    li.textContent = "none";
    hands.appendChild(li);
  }
  const over = b.phase === "ended";
  // Once the session is over, the debrief replaces the controls.
  for (const id of ["rh-controls", "rh-exchange", "rh-hands-box"]) $(id).hidden = over;
  const inExchange = !!ex && !over;
  $("rh-prev").disabled = over || b.slide === 0;
  $("rh-next").disabled = over || b.slide + 1 >= b.slides;
  $("rh-openqa").disabled = over || b.phase !== "presenting";
  $("rh-answered").disabled = !inExchange;
  $("rh-moveon").disabled = !inExchange;
  $("rh-end").disabled = over;
  const debrief = $("rh-debrief");
  debrief.hidden = !b.debrief;
  if (b.debrief) renderMarkdown(b.debrief, debrief);
  const dashboard = $("rh-dashboard");
  dashboard.hidden = !b.dashboard;
  if (b.dashboard) renderDashboard(b.dashboard, dashboard);
}

// The debrief's figures at a glance: tiles for the pace and the fillers, a bar per slide
// (its time against the plan, its pace), the panel's verdicts, what was left open and
// the change since the last session. Elements and textContent only.
function renderDashboard(d, into) {
  into.textContent = "";
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const num = (v, digits = 0) => (v === null || v === undefined ? "–" : Number(v).toFixed(digits));
  const clock = (ms) => {
    const s = Math.round(ms / 1000);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  };
  const tiles = el("div", "tiles");
  const tile = (name, value, unit) => {
    const t = el("div", "tile");
    t.dataset.figure = name;
    t.append(el("div", "value", value), el("div", "unit", unit));
    tiles.appendChild(t);
  };
  tile("pace", num(d.words_per_minute), "words a minute");
  tile("fillers", num(d.fillers_per_minute, 1), "fillers a minute");
  tile("hedges", num(d.hedges_per_minute, 1), "hedges a minute");
  tile("pauses", String(d.long_pauses), "long pauses");
  tile("length", clock(d.session_ms), `of ${clock(d.planned_ms)} planned`);
  into.appendChild(tiles);

  into.appendChild(el("h4", null, "Time per slide, against the plan"));
  const slides = el("div", "slides");
  const longest = Math.max(1, ...d.slides.map((s) => Math.max(s.shown_ms, s.planned_ms || 0)));
  for (const s of d.slides) {
    const row = el("div", "slide-row");
    row.dataset.slide = s.slide;
    row.appendChild(el("span", "name", `#${s.slide} ${s.title}`));
    const track = el("span", "track");
    const shown = el("span", "shown");
    shown.style.width = `${(100 * s.shown_ms) / longest}%`;
    if (s.planned_ms && s.shown_ms > s.planned_ms) shown.classList.add("over");
    track.appendChild(shown);
    if (s.planned_ms) {
      const plan = el("span", "plan");
      plan.style.left = `${(100 * s.planned_ms) / longest}%`;
      plan.title = `planned ${clock(s.planned_ms)}`;
      track.appendChild(plan);
    }
    row.appendChild(track);
    const planned = s.planned_ms ? ` / ${clock(s.planned_ms)}` : "";
    row.appendChild(el("span", "figures", `${clock(s.shown_ms)}${planned} · ${num(s.words_per_minute)} wpm`));
    slides.appendChild(row);
  }
  if (!d.slides.length) slides.appendChild(el("div", "small none", "nothing presented"));
  into.appendChild(slides);

  into.appendChild(el("h4", null, "The panel's verdicts"));
  const verdicts = el("div", "verdicts");
  for (const [key, label] of [["answered", "answered"], ["partly", "partly"], ["dodged", "dodged"], ["unrated", "unrated"]]) {
    const v = el("span", `verdict ${key}`, `${d.ratings[key]} ${label}`);
    v.dataset.verdict = key;
    verdicts.appendChild(v);
  }
  into.appendChild(verdicts);
  if (d.bites.length) {
    const bites = el("p", "bites");
    bites.textContent =
      "Questions that bite (a figure or a claim of the slide or the answer): " +
      d.bites.map((b) => `${b.name} ${b.biting} of ${b.asked}`).join(" · ");
    into.appendChild(bites);
  }

  if (d.open_challenges.length) {
    into.appendChild(el("h4", null, "Left open"));
    const open = el("ul", "open");
    for (const c of d.open_challenges) {
      open.appendChild(el("li", null, `${c.slide_title}: “${c.question}” (${c.rating || "unrated"})`));
    }
    into.appendChild(open);
  }

  if (d.since_last) {
    const l = d.since_last;
    const since = el("p", "since");
    since.textContent =
      `Since the last session: pace ${num(l.words_per_minute[0])} → ${num(l.words_per_minute[1])} words a minute, ` +
      `fillers ${num(l.fillers_per_minute[0], 1)} → ${num(l.fillers_per_minute[1], 1)} a minute, ` +
      `${l.answered} of ${l.left_open} open challenge(s) answered.`;
    into.appendChild(since);
  }
}

// A small Markdown reader for the debrief: headings, tables, lists, paragraphs,
// *emphasis*. It builds elements with textContent only: nothing is parsed as HTML.
function renderMarkdown(text, into) {
  into.textContent = "";
  let list = null, table = null, para = null;
  const inline = (el, s) => {
    s.split(/(\*[^*]+\*)/).forEach((part) => {
      if (part.length > 2 && part.startsWith("*") && part.endsWith("*")) {
        const em = document.createElement("em");
        em.textContent = part.slice(1, -1);
        el.appendChild(em);
      } else if (part) el.appendChild(document.createTextNode(part));
    });
    return el;
  };
  const close = () => { list = null; table = null; para = null; };
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    if (!line.trim()) { close(); continue; }
    if (heading) {
      close();
      into.appendChild(inline(document.createElement(`h${Math.min(heading[1].length + 2, 6)}`), heading[2]));
    } else if (line.trim().startsWith("|")) {
      const cells = line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
      if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
      if (!table) { list = null; para = null; table = document.createElement("table"); into.appendChild(table); }
      const tr = document.createElement("tr");
      for (const c of cells) tr.appendChild(inline(document.createElement(table.rows.length ? "td" : "th"), c));
      table.appendChild(tr);
    } else if (/^\s*- /.test(line)) {
      const nested = /^\s{2,}- /.test(line);
      if (!list) { table = null; para = null; list = document.createElement("ul"); into.appendChild(list); }
      let target = list;
      if (nested && list.lastElementChild) {
        let sub = list.lastElementChild.querySelector("ul");
        if (!sub) { sub = document.createElement("ul"); list.lastElementChild.appendChild(sub); }
        target = sub;
      }
      target.appendChild(inline(document.createElement("li"), line.replace(/^\s*- /, "")));
    } else {
      if (!para) { list = null; table = null; para = document.createElement("p"); into.appendChild(para); }
      else para.appendChild(document.createTextNode(" "));
      inline(para, line.trim());
    }
  }
}

$("rh-prev").onclick = () => control("prev");
$("rh-next").onclick = () => control("next");
$("rh-openqa").onclick = () => control("open_qa");
$("rh-answered").onclick = () => control("answered");
$("rh-moveon").onclick = () => control("move_on");
$("rh-end").onclick = () => control("end");

// --- controls --------------------------------------------------------------------------

function control(command) { send({ type: "control", command }); }

$("btn-pause").onclick = () => control("cancel");
$("btn-resume").onclick = () => control("ready");
$("btn-reset").onclick = () => control("reset");
$("btn-stats").onclick = () => control("stats");
$("btn-listen").onclick = toggleListen;
const ptt = $("btn-ptt");
ptt.addEventListener("pointerdown", (e) => { e.preventDefault(); if (!openMicOn) micOn(); });
for (const ev of ["pointerup", "pointerleave", "pointercancel"]) ptt.addEventListener(ev, () => { if (!openMicOn) micOff(); });
$("btn-openmic").onclick = () => {
  openMicOn = !openMicOn;
  if (openMicOn) micOn(); else micOff();
  $("btn-openmic").setAttribute("aria-pressed", String(openMicOn));
};
$("say-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("say-text");
  const text = input.value.trim();
  if (!text) return;
  send({ type: "say", text });
  input.value = "";
});

connect();

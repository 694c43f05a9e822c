// Recording in the page, with `record`'s promise: nothing said is lost. The microphone's
// samples (capture.js, on the audio thread) are kept in this browser's IndexedDB, a second at
// a time, until the server has acknowledged them (POST /api/recording-audio at their byte
// offset); the server syncs each to its disk before it answers. So a network that drops, a
// server that restarts or a tab that closes costs nothing: the chunks wait here, and are sent
// from where the server is when it answers again, on this visit or the next.
"use strict";

const recordRate = 48000;
// A chunk is kept, then sent, each second.
const chunkFrames = recordRate;
// A recording nobody captures any more (its tab closed): saved under its default name, once
// its tab has been silent this long (ms); a stopped one waits longer for its name.
const orphanedWhileRecording = 10000;
const orphanedWhileNaming = 600000;

const recorder = document.getElementById("recorder");
const recordTime = document.getElementById("record-time");
const recordLevel = document.getElementById("record-level");
const recordPause = document.getElementById("record-pause");
const recordMark = document.getElementById("record-mark");
const recordStop = document.getElementById("record-stop");
const recordCancel = document.getElementById("record-cancel");
const recordNaming = document.getElementById("record-naming");
const recordName = document.getElementById("record-name");
const recordSave = document.getElementById("record-save");
const recordDiscard = document.getElementById("record-discard");
const recordStatus = document.getElementById("record-status");

// One IndexedDB database: `recordings` (what each recording is: its folder, rate, frames
// captured, markers, how it ends) and `chunks` (its samples, keyed by [id, byte offset]).
let recordingsDatabase = null;
function openRecordings() {
  if (!recordingsDatabase) {
    recordingsDatabase = new Promise((resolve, reject) => {
      const opening = indexedDB.open("recnotes-recordings", 1);
      opening.onupgradeneeded = () => {
        opening.result.createObjectStore("recordings", { keyPath: "id" });
        opening.result.createObjectStore("chunks", { keyPath: ["id", "offset"] });
      };
      opening.onsuccess = () => resolve(opening.result);
      opening.onerror = () => reject(opening.error);
    });
  }
  return recordingsDatabase;
}

// Runs `body` in one transaction and resolves once it is committed ("strict": on the disk).
async function stored(names, mode, body) {
  const database = await openRecordings();
  const transaction = database.transaction(names, mode, { durability: mode === "readwrite" ? "strict" : "default" });
  const result = body(transaction);
  await new Promise((resolve, reject) => {
    transaction.oncomplete = resolve;
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error);
  });
  return result instanceof IDBRequest ? result.result : result;
}

const saveRecording = (record) => stored(["recordings"], "readwrite", (t) => t.objectStore("recordings").put(record));

// A v4 UUID; crypto.randomUUID exists only in a secure context.
function newUUID() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// The recording this tab is capturing, or null.
let capture = null;

async function startRecording(path) {
  if (capture) return;
  if (!navigator.mediaDevices || !window.AudioWorkletNode) {
    throw new Error("this browser cannot record here (it allows the microphone only on HTTPS or localhost)");
  }
  // The voice as it is: no processing a recording could not take back.
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
  });
  let context;
  try {
    context = new AudioContext({ sampleRate: recordRate });
    await context.audioWorklet.addModule("/page/capture.js");
  } catch (error) {
    for (const track of stream.getTracks()) track.stop();
    throw error;
  }
  const source = context.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(context, "recnotes-capture");
  // Pulled by the output, which hears nothing of it.
  const silent = context.createGain();
  silent.gain.value = 0;
  source.connect(node).connect(silent).connect(context.destination);
  const record = {
    id: newUUID(), path, rate: context.sampleRate, frames: 0, marks: [], ending: null, stopped: false,
    heartbeat: Date.now(),
  };
  await saveRecording(record);
  capture = { record, context, stream, node, parts: [], partFrames: 0, paused: false, kept: Promise.resolve() };
  node.port.onmessage = (event) => heard(event.data);
  if (context.state === "suspended") await context.resume();
  showRecorder("recording");
  pump();
}

function capturedSeconds() {
  return capture ? (capture.record.frames + capture.partFrames) / capture.record.rate : 0;
}

function heard({ samples, peak }) {
  if (!capture || capture.paused) return;
  capture.parts.push(samples);
  capture.partFrames += samples.length;
  recordLevel.value = peak;
  recordTime.textContent = clock(capturedSeconds());
  if (capture.partFrames >= chunkFrames) keep();
}

// The samples heard since the last chunk become one, kept in IndexedDB (in order: each waits
// for the one before), then sent.
function keep() {
  const c = capture;
  if (!c) return Promise.resolve();
  if (c.partFrames > 0) {
    const joined = new Int16Array(c.partFrames);
    let at = 0;
    for (const part of c.parts) {
      joined.set(part, at);
      at += part.length;
    }
    c.parts = [];
    c.partFrames = 0;
    const offset = c.record.frames * 2;
    c.record.frames += joined.length;
    c.record.heartbeat = Date.now();
    const record = { ...c.record, marks: [...c.record.marks] };
    c.kept = c.kept.then(() => stored(["recordings", "chunks"], "readwrite", (t) => {
      t.objectStore("chunks").put({ id: record.id, offset, bytes: joined.buffer });
      t.objectStore("recordings").put(record);
    }));
  } else {
    c.record.heartbeat = Date.now();
    const record = { ...c.record, marks: [...c.record.marks] };
    c.kept = c.kept.then(() => saveRecording(record));
  }
  // The chain waits for the writes alone, never for the sending: a pump that moves this
  // recording's chunks (continueAfterSaved) waits for the chain in turn.
  c.kept = c.kept.then(() => { pump(); }, (error) => {
    recordStatus.textContent = `Record: cannot keep the audio in this browser: ${error.message}`;
  });
  return c.kept;
}

// A paused recording's tab still says it is there.
setInterval(() => { if (capture && capture.paused) keep(); }, orphanedWhileRecording / 3);

function pauseOrResume() {
  if (!capture) return;
  capture.paused = !capture.paused;
  capture.node.port.postMessage({ paused: capture.paused });
  recordPause.textContent = capture.paused ? "Resume" : "Pause";
  recorder.dataset.state = capture.paused ? "paused" : "recording";
  if (capture.paused) keep();
}

function markNow() {
  if (!capture) return;
  capture.record.marks.push({ at: capturedSeconds(), label: "" });
  recordStatus.textContent = `Marked at ${clock(capturedSeconds())}`;
  keep();
}

// Stops capturing; what was heard is kept. Then the name is asked (the date by default, as
// `record` names it), or `ending` says how it ends at once (Cancel: to the trash).
async function stopCapture(ending) {
  const c = capture;
  if (!c) return;
  c.node.port.postMessage({ paused: true });
  c.paused = false;
  c.record.stopped = true;
  await keep();
  // The frames captured, all of which the server must have before it saves: on the page
  // for whoever holds the saved recording against them.
  recorder.dataset.frames = String(c.record.frames);
  capture = null;
  for (const track of c.stream.getTracks()) track.stop();
  c.context.close().catch(() => {});
  if (ending) return end(c.record, ending);
  naming = c.record;
  recordName.value = c.record.continues ? `${c.record.continues} (continued)` : defaultNames.get(c.record.id) || "";
  showRecorder("naming");
  recordName.focus();
  recordName.select();
}

let naming = null;
async function end(record, ending) {
  naming = null;
  record.ending = ending;
  await saveRecording(record);
  recordStatus.textContent = ending.kind === "trash" ? "Cancelled: moving it to the trash…" : "Saving…";
  showRecorder(null);
  pump();
}

function showRecorder(state) {
  recorder.hidden = state === null && !recordStatus.textContent;
  recorder.dataset.state = state || "idle";
  for (const control of [recordPause, recordMark, recordStop, recordCancel]) {
    control.hidden = state !== "recording" && state !== "paused";
  }
  recordPause.textContent = "Pause";
  recordNaming.hidden = state !== "naming";
  recordTime.hidden = recordLevel.hidden = state === null;
}

recordPause.addEventListener("click", pauseOrResume);
recordMark.addEventListener("click", markNow);
recordStop.addEventListener("click", () => stopCapture(null));
recordCancel.addEventListener("click", () => stopCapture({ kind: "trash" }));
recordNaming.addEventListener("submit", (event) => {
  event.preventDefault();
  if (naming) end(naming, { kind: "save", name: recordName.value.trim() });
});
recordDiscard.addEventListener("click", () => { if (naming) end(naming, { kind: "trash" }); });

// What the server has of each recording (bytes), as it last said; asked again on each visit.
const serverHas = new Map();
const defaultNames = new Map();
const sentMarks = new Set();

// A write of the recording's, with the token asked for again when the server restarted
// (a new server, a new token).
async function recordingWrite(route, parameters, body) {
  try {
    return await write(route, parameters, body);
  } catch (error) {
    if (error.status !== 403 || !session || session.readOnly) throw error;
    session = null;
    return write(route, parameters, body);
  }
}

let pumping = false;
let pumpAgain = false;
let retryTimer = null;
let retryDelay = 1000;

// Sends what the server does not have yet, of every recording this browser keeps, oldest
// first; one at a time. A failure (no answer, a refusal) tries again later, ever less often
// up to every 15 s, and at once when the browser is online again.
async function pump() {
  if (pumping) {
    pumpAgain = true;
    return;
  }
  pumping = true;
  clearTimeout(retryTimer);
  try {
    do {
      pumpAgain = false;
      const records = await stored(["recordings"], "readonly", (t) => t.objectStore("recordings").getAll());
      for (const record of records) await send(record);
    } while (pumpAgain);
    retryDelay = 1000;
    if (!capture && !naming && recorder.dataset.state === "idle" && !recordStatus.textContent) recorder.hidden = true;
  } catch (error) {
    recordStatus.textContent = `Record: ${error.message}; the audio is kept here and sent when it can be`;
    recorder.hidden = false;
    retryTimer = setTimeout(pump, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 15000);
  } finally {
    pumping = false;
  }
}

const chunksOf = (id) => IDBKeyRange.bound([id, 0], [id, Number.MAX_SAFE_INTEGER]);

// The server saved this recording without its page (it had not heard from it for a day), with
// `saved.frames` frames: the rest becomes a recording of its own, "NAME (continued)" unless
// it is given a name, starting where the saved one ends. Whatever this tab still records goes
// to the new one: its id and frames change here at once, and its chunks move in the order
// this tab keeps them (capture.kept).
function continueAfterSaved(record, saved) {
  const id = newUUID();
  const cut = saved.frames * 2;
  const shift = saved.frames / record.rate;
  const moved = (mark) => ({ ...mark, at: mark.at - shift });
  const change = (r) => {
    r.id = id;
    r.frames = Math.max(0, r.frames - saved.frames);
    r.marks = r.marks.filter((mark) => mark.at >= shift).map(moved);
    r.continues = saved.name;
  };
  const rest = { ...record, marks: [...record.marks] };
  change(rest);
  const mine = capture && capture.record.id === record.id;
  if (mine) change(capture.record);
  if (naming && naming.id === record.id) change(naming);
  const rekey = async () => {
    const chunks = await stored(["chunks"], "readonly", (t) => t.objectStore("chunks").getAll(chunksOf(record.id)));
    const latest = mine ? { ...capture.record, marks: [...capture.record.marks] } : rest;
    await stored(["recordings", "chunks"], "readwrite", (t) => {
      const kept = t.objectStore("chunks");
      for (const chunk of chunks) {
        kept.delete([record.id, chunk.offset]);
        if (chunk.offset + chunk.bytes.byteLength <= cut) continue;
        const from = Math.max(0, cut - chunk.offset);
        kept.put({ id, offset: chunk.offset + from - cut, bytes: chunk.bytes.slice(from) });
      }
      t.objectStore("recordings").delete(record.id);
      t.objectStore("recordings").put(latest);
    });
  };
  serverHas.delete(record.id);
  recordStatus.textContent = `The server saved ${saved.saved} without this page; the rest goes as a recording of its own`;
  recorder.hidden = false;
  pumpAgain = true;
  if (!mine) return rekey();
  capture.kept = capture.kept.then(rekey);
  return capture.kept;
}

// A write of one of `record`'s routes; when the server says it saved the recording without
// this page, the rest is given a recording of its own, and null is the answer.
async function recordingStep(record, route, parameters, body) {
  try {
    return await recordingWrite(route, parameters, body);
  } catch (error) {
    if (error.status !== 404 || !error.body || !error.body.saved) throw error;
    await continueAfterSaved(record, error.body);
    return null;
  }
}

async function send(record) {
  const id = record.id;
  const mine = capture && capture.record.id === id;
  const namingHere = naming !== null && naming.id === id;
  let ending = record.ending;
  if (!mine && !namingHere && !ending && Date.now() - record.heartbeat >= (record.stopped ? orphanedWhileNaming : orphanedWhileRecording)) {
    // Its tab is gone: saved under its default name, as `record` saves one it could not ask.
    ending = { kind: "save", name: "" };
  }
  if (!serverHas.has(id)) {
    const answer = await recordingStep(record, "recording-start", { id, path: record.path, rate: record.rate, channels: 1 });
    if (!answer) return;
    serverHas.set(id, answer.received);
    defaultNames.set(id, answer.name);
    if (naming && naming.id === id && !recordName.value) recordName.value = answer.name;
  }
  const chunks = await stored(["chunks"], "readonly", (t) => t.objectStore("chunks").getAll(chunksOf(id)));
  for (const chunk of chunks) {
    const end = chunk.offset + chunk.bytes.byteLength;
    if (end > serverHas.get(id)) {
      try {
        const answer = await recordingStep(record, "recording-audio", { id, offset: chunk.offset }, chunk.bytes);
        if (!answer) return;
        serverHas.set(id, answer.received);
      } catch (error) {
        // The server has less than this chunk's start: it says where to send from.
        if (error.status !== 409 || !error.body || error.body.received === undefined) throw error;
        serverHas.set(id, error.body.received);
        if (chunk.offset > error.body.received) throw error;
        continue;
      }
    }
    if (end <= serverHas.get(id)) {
      await stored(["chunks"], "readwrite", (t) => t.objectStore("chunks").delete([id, chunk.offset]));
    }
  }
  for (const mark of record.marks) {
    const key = `${id} ${mark.at} ${mark.label}`;
    if (sentMarks.has(key)) continue;
    if (!(await recordingStep(record, "recording-mark", { id, at: mark.at.toFixed(3), label: mark.label }))) return;
    sentMarks.add(key);
  }
  if (mine || !ending || serverHas.get(id) < record.frames * 2) return;
  const name = ending.name || (record.continues ? `${record.continues} (continued)` : "");
  let said;
  try {
    const items = ending.kind === "trash"
      ? await recordingWrite("recording-cancel", { id })
      : await recordingWrite("recording-stop", { id, frames: record.frames, ...(name ? { name } : {}) });
    const item = items[0];
    said = ending.kind === "trash" ? `Moved to the trash: ${item.name}` : `Saved ${item.path} (${clock(item.duration)})`;
  } catch (error) {
    // Nothing was recorded: nothing to save, and nothing lost.
    if (error.status !== 404 || !/nothing was recorded/.test(error.message)) throw error;
    said = "Nothing was recorded";
  }
  await stored(["recordings", "chunks"], "readwrite", (t) => {
    t.objectStore("recordings").delete(id);
    t.objectStore("chunks").delete(chunksOf(id));
  });
  serverHas.delete(id);
  defaultNames.delete(id);
  recordStatus.textContent = said;
  recorder.hidden = false;
}

// The button on a folder's page: a recording into that folder.
function recordButton(path) {
  if (!navigator.mediaDevices || !window.AudioWorkletNode || !window.indexedDB) return null;
  return el("button", {
    id: "record", type: "button", title: "Record from this device's microphone into this folder",
    onclick: writing("Record", async () => {
      recordStatus.textContent = "";
      await startRecording(path);
    }),
  }, "Record");
}

window.addEventListener("online", pump);
// Installed, the page opens with no network (sw.js), and records all the same.
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
window.addEventListener("pagehide", () => { if (capture) keep(); });
// What an earlier visit left is sent now (page.js has run by then).
document.addEventListener("DOMContentLoaded", pump);

// recnotes serve's page: the library, a recording, a search, all from /api/ (the CLI's --json),
// kept fresh by /api/events. No framework, no build step: the browser runs this file as it is.
"use strict";

const main = document.getElementById("main");
const status = document.getElementById("status");
const form = document.getElementById("search");

// The page being shown: its refresh() runs again on a store change.
let view = null;

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

// What every request says when no answer comes at all (the server stopped, the network went):
// the browser's own "Failed to fetch" names nothing the user can act on.
const notAnswering = "the server is not answering";

// A request's answer as JSON; a refusal throws an Error with the server's message, its status
// and the rest of its body (`inTrash`, `copies`).
async function request(url, init) {
  let response, body;
  try {
    response = await fetch(url, { cache: "no-store", ...init });
    body = await response.json();
  } catch {
    const error = new Error(notAnswering);
    error.status = 0;
    throw error;
  }
  if (!response.ok) {
    const error = new Error(body.error || response.statusText);
    error.status = response.status;
    error.body = body;
    throw error;
  }
  return body;
}

async function api(route, parameters) {
  return request(`/api/${route}?${new URLSearchParams(parameters)}`);
}

// A write (POST /api/mark, tag, note, upload) carries the write token that /api/session gives
// this page (a page of another site cannot read it). Nothing is shown from its answer: the
// store's change comes back through /api/events, and the view refreshes from there.
let session = null;
async function sessionInfo() {
  if (!session) session = await api("session", {});
  return session;
}

async function write(route, parameters, body) {
  const { writeToken } = await sessionInfo();
  const answer = await request(`/api/${route}?${new URLSearchParams(parameters)}`, {
    method: "POST", body, headers: { "X-Recnotes-Token": writeToken },
  });
  status.textContent = "";
  return answer;
}

// A server error is the CLI's line, `<subject>: <reason>`, whose subject is a path or an
// option as typed (`--at 5.473`); the page names what the user did instead, and gives the reason.
function inPageTerms(what, error) {
  const message = error.message || String(error);
  const colon = message.indexOf(": ");
  return `${what}: ${error.status && colon > 0 ? message.slice(colon + 2) : message}`;
}

// A control that writes: what it says when the write fails, in the status line.
function writing(what, action) {
  return () => action().catch((error) => { status.textContent = inPageTerms(what, error); });
}

// FNV-1a (64 bits) of the text's UTF-8 in 16 hex digits: LibraryAPI.noteVersion, the version
// of a note as this page read it, sent back with a change of it.
function noteVersion(text) {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text || "")) {
    hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}

// The write controls are left out when the server is --read-only.
async function writable() {
  try {
    return !(await sessionInfo()).readOnly;
  } catch {
    return false;
  }
}

// 0:05, 1:02:03: as the CLI shows durations.
function clock(seconds) {
  const whole = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
  const pad = (n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

function date(iso) {
  const when = new Date(iso);
  return isNaN(when) ? iso : when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function excerpt(text, length) {
  if (!text) return "";
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > length ? line.slice(0, length - 1) + "…" : line;
}

function tags(list) {
  return (list || []).map((tag) => el("span", { class: "tag", text: tag }));
}

function folderLink(path, label) {
  return el("a", { href: "/?" + new URLSearchParams({ path }), text: label });
}

function recordingHref(uuid, seconds) {
  return `/r/${uuid}` + (seconds === null || seconds === undefined ? "" : `#t=${seconds}`);
}

// Each folder above `path`, as links: / › Talks › Deep.
function crumbs(path) {
  const parts = path.split("/").filter(Boolean);
  const nodes = [folderLink("/", "/")];
  parts.forEach((part, i) => {
    nodes.push(" › ");
    nodes.push(folderLink("/" + parts.slice(0, i + 1).join("/"), part));
  });
  return el("p", { class: "crumbs" }, nodes);
}

// One row of a list: a folder or a recording as `ls` shows it.
function itemRow(item, extra) {
  const isFolder = item.type === "folder";
  const link = isFolder ? folderLink(item.path, item.name + "/") : el("a", { href: recordingHref(item.uuid), text: item.name });
  link.classList.add("name");
  const marks = [];
  if (!isFolder && item.markers && item.markers.length) {
    marks.push(el("span", { class: "badge", title: `${item.markers.length} markers`, text: `◆${item.markers.length}` }));
  }
  // `transcribed` is in ls --json only when the recording has a transcript.
  if (!isFolder && item.transcribed && !item.transcriptEmpty) marks.push(el("span", { class: "badge transcribed", title: "transcript", text: "¶" }));
  // As `ls -l` says in its size column: audio that sync left on another machine, or lost.
  if (!isFolder && "size" in item && item.size === null) {
    marks.push(el("span", { class: "badge absent", title: "its audio is not on this machine", text: "not here" }));
  }
  const meta = isFolder
    ? `${item.children} item${item.children === 1 ? "" : "s"}`
    : `${clock(item.trimmedDuration ?? item.duration)} · ${date(item.created)}`;
  const more = el("div", { class: "more" }, tags(item.tags), excerpt(item.note, 120));
  return el("li", { "data-uuid": item.uuid }, el("span", {}, link, marks), el("span", { class: "meta", text: meta }), more, extra);
}

// The library: a folder's items, sorted as `ls --sort` sorts them.
async function showFolder(parameters) {
  const path = parameters.get("path") || "/";
  const sort = parameters.get("sort") || "name";
  const reverse = parameters.get("reverse") === "1";
  const sorter = el("select", { "aria-label": "Sort by", id: "sort" },
    ["name", "date", "duration", "size"].map((key) => el("option", { value: key, selected: key === sort, text: key })));
  const reverser = el("input", { type: "checkbox", id: "reverse", checked: reverse });
  const resort = () => {
    const next = new URLSearchParams({ path, sort: sorter.value });
    if (reverser.checked) next.set("reverse", "1");
    go("/?" + next);
  };
  sorter.addEventListener("change", resort);
  reverser.addEventListener("change", resort);
  const list = el("ul", { class: "items", id: "items" });
  const title = el("h1", { text: path === "/" ? "Library" : path.split("/").pop() });
  const controls = el("div", { class: "controls" }, el("label", {}, "sort ", sorter), el("label", {}, reverser, " reverse"));
  // The title's line holds Record, so that on a phone the list still starts high.
  const heading = el("div", { class: "heading" }, title);
  main.replaceChildren(crumbs(path), heading, controls, list);
  // With no answer from the server (the installed page opened offline), it may still record:
  // the recording waits in this browser.
  let writes = false;
  let unreachable = false;
  try {
    writes = !(await sessionInfo()).readOnly;
  } catch (error) {
    unreachable = error.status === 0;
  }
  if (unreachable) {
    const recording = recordButton(path);
    if (recording) heading.append(recording);
  }
  if (writes) {
    // An audio file from this device becomes a recording here, as `recnotes import` makes it.
    // One button that opens the chooser, and the chosen file goes at once: the browser's own
    // file field takes a line of a phone's screen to say that no file is chosen.
    const file = el("input", { type: "file", id: "upload-file", class: "chooser", accept: "audio/*", "aria-label": "Audio file to upload" });
    const send = el("label", { id: "upload", class: "button" }, "Upload…", file);
    file.addEventListener("change", writing("Upload", async () => {
      const chosen = file.files[0];
      if (!chosen) return;
      status.textContent = `uploading ${chosen.name}…`;
      try {
        await write("upload", { path, filename: chosen.name }, chosen);
      } finally {
        file.value = "";
      }
    }));
    controls.append(send);
    // A recording from this device's microphone into this folder (record.js).
    const recording = recordButton(path);
    if (recording) heading.append(recording);
  }
  document.title = `${path} · recnotes`;
  view = {
    async refresh() {
      let items;
      try {
        items = await api("ls", { path, sort, reverse: reverse ? "1" : "0" });
      } catch (error) {
        if (error.status !== 0) throw error;
        list.replaceChildren(el("li", { class: "quiet", text: "The server is not answering: the folder shows when it does." }));
        status.textContent = notAnswering;
        return;
      }
      list.replaceChildren(...items.map((item) => itemRow(item)));
      if (!items.length) list.append(el("li", { class: "quiet", text: "Empty folder." }));
    },
  };
  await view.refresh();
}

// A search through /api/find: each hit links to the recording at the moment it matched.
async function showFind(parameters) {
  const query = { path: parameters.get("path") || "/" };
  for (const key of ["text", "tag", "after", "before"]) {
    const value = parameters.get(key);
    if (value) query[key] = value;
    if (form.elements[key]) form.elements[key].value = value || "";
  }
  document.getElementById("filters").open = Boolean(query.tag || query.after || query.before);
  const list = el("ul", { class: "items hits", id: "hits" });
  const said = [query.text && `“${query.text}”`, query.tag && `#${query.tag}`, query.after && `after ${query.after}`,
    query.before && `before ${query.before}`].filter(Boolean).join(", ");
  main.replaceChildren(crumbs(query.path), el("h1", { text: `Found: ${said}` }), list);
  document.title = `find ${said} · recnotes`;
  view = {
    async refresh() {
      const hits = await api("find", query);
      list.replaceChildren(...hits.map((hit) => {
        const snippets = (hit.matches || []).filter((m) => m.snippet || m.label).map((m) =>
          el("div", { class: "snippet" },
            m.seconds !== undefined && m.seconds !== null && hit.type !== "folder"
              ? el("a", { href: recordingHref(hit.uuid, m.seconds), class: "time", text: clock(m.seconds) + " " })
              : null,
            `${m.field}: ${m.snippet || m.label}`));
        const row = itemRow(hit, snippets);
        if (hit.type !== "folder" && hit.time !== null && hit.time !== undefined) {
          row.querySelector("a.name").href = recordingHref(hit.uuid, hit.time);
        }
        return row;
      }));
      if (!hits.length) list.append(el("li", { class: "quiet", text: "Nothing found." }));
    },
  };
  await view.refresh();
}

// The waveform `info` shows, one block character per stretch of audio, drawn as bars; the
// speech regions under it, the markers over it, and the play head.
function drawWave(canvas, waveform, speech, markers, duration, now) {
  const blocks = " ▁▂▃▄▅▆▇█";
  const levels = Array.from(waveform || "").map((c) => Math.max(0, blocks.indexOf(c)) / 8);
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth * ratio, height = canvas.clientHeight * ratio;
  canvas.width = width;
  canvas.height = height;
  const g = canvas.getContext("2d");
  const style = getComputedStyle(document.documentElement);
  g.clearRect(0, 0, width, height);
  const band = 8 * ratio, mid = (height - band) / 2;
  g.fillStyle = style.getPropertyValue("--wave");
  const step = width / Math.max(levels.length, 1);
  levels.forEach((level, i) => {
    const h = Math.max(1, level * (height - band - 4 * ratio));
    g.fillRect(i * step + 0.5, mid - h / 2, Math.max(1, step - 1), h);
  });
  g.fillStyle = style.getPropertyValue("--speech");
  for (const [start, end] of speech || []) {
    g.fillRect((start / duration) * width, height - band, Math.max(1, ((end - start) / duration) * width), band);
  }
  g.fillStyle = style.getPropertyValue("--accent");
  for (const marker of markers || []) {
    g.beginPath();
    const x = (marker.seconds / duration) * width;
    g.moveTo(x - 5 * ratio, 0);
    g.lineTo(x + 5 * ratio, 0);
    g.lineTo(x, 8 * ratio);
    g.fill();
  }
  g.fillStyle = style.getPropertyValue("--head");
  g.fillRect((now / duration) * width - ratio, 0, 2 * ratio, height);
}

// A recording: the player, waveform, markers, transcript, note, tags and trim points.
async function showRecording(uuid) {
  const at = "@" + uuid;
  // The audio's source is set once the recording is known to have its audio here.
  const audio = el("audio", { id: "player", controls: true, preload: "metadata" });
  const canvas = el("canvas", { id: "wave", tabindex: "0", "aria-label": "Waveform: click or use the arrow keys to move the play head" });
  const speed = el("select", { id: "speed", "aria-label": "Playback speed" },
    ["0.5", "0.75", "1", "1.25", "1.5", "1.75", "2"].map((v) => el("option", { value: v, selected: v === "1", text: v + "×" })));
  const play = el("button", { type: "button", id: "play", text: "Play" });
  const download = el("a", { id: "download", href: `/audio/${uuid}`, text: "Download" });
  const title = el("h1", { text: "…" });
  const where = el("div");
  const meta = el("p", { class: "meta" });
  const absent = el("div", { id: "absent", class: "notice", hidden: true });
  const about = el("div");
  const marks = el("ul", { class: "marks", id: "markers" });
  const lines = el("ol", { class: "lines", id: "transcript" });
  const topics = el("p", { class: "topics", id: "topics" });
  const chapters = el("ul", { class: "marks", id: "chapters" });
  // Where a correction brought in names that are not among your words: the offer to add them.
  const offer = el("div", { id: "words-offer", class: "notice", hidden: true });
  const editing = el("div", { class: "controls", id: "editing" });
  const conflict = el("div", { id: "note-conflict", class: "notice", hidden: true });
  const playing = el("div", { class: "controls" }, play, el("label", {}, "speed ", speed), download);
  main.replaceChildren(where, title, meta, absent, audio, canvas, playing,
    editing, conflict, about, el("h2", { text: "Markers" }), marks, el("h2", { text: "Topics" }), topics,
    el("h2", { text: "Chapters" }), chapters, el("h2", { text: "Transcript" }), offer, lines);
  const canWrite = await writable();

  let info = null, segments = [];
  // The note as this page last read it: what a save says it changes (`version`).
  let noteRead = null;
  const note = el("textarea", { id: "note-edit", rows: "3", "aria-label": "Note", placeholder: "note" });
  const saveNote = (text, read) => write("note", { path: at, version: noteVersion(read) }, text).catch(async (error) => {
    if (error.status !== 409) throw error;
    // Changed elsewhere since it was read: both texts, and the choice of which to keep.
    const now = (await api("info", { path: at })).note || "";
    const mine = el("button", { type: "button", id: "keep-mine", text: "Save mine" });
    const theirs = el("button", { type: "button", id: "keep-theirs", text: "Keep the other" });
    mine.addEventListener("click", writing("Save note", async () => {
      await saveNote(text, now);
      conflict.hidden = true;
    }));
    theirs.addEventListener("click", () => {
      note.value = now;
      noteRead = now;
      conflict.hidden = true;
    });
    conflict.replaceChildren(
      el("p", { text: "The note was changed elsewhere after this page read it. Which one should it be?" }),
      el("h3", { text: "Yours" }), el("p", { class: "note", id: "note-mine", text: text }),
      el("h3", { text: "Now stored" }), el("p", { class: "note", id: "note-theirs", text: now || "(empty)" }),
      el("div", { class: "controls" }, mine, theirs));
    conflict.hidden = false;
    status.textContent = "";
  });
  const removeTag = (name) => writing("Remove tag", () => write("tag", { path: at, remove: name }));
  if (canWrite) {
    // A marker at the play head, a tag added (+work or work) or removed (-work), the note.
    const label = el("input", { type: "text", id: "mark-label", placeholder: "marker label", "aria-label": "Marker label", size: "12" });
    const mark = el("button", { type: "button", id: "mark", text: "Mark here" });
    mark.addEventListener("click", writing("Mark here", async () => {
      // The browser's idea of the end can pass the store's by a fraction of a frame: the
      // play head is taken as at most the recording's length, to the millisecond below.
      const seconds = Math.min(audio.currentTime, info ? info.duration : audio.currentTime);
      await write("mark", { path: at, at: (Math.floor(seconds * 1000) / 1000).toFixed(3), label: label.value });
      label.value = "";
    }));
    const tag = el("input", { type: "text", id: "tag-edit", placeholder: "+tag or -tag", "aria-label": "Tag to add or remove", size: "10" });
    const tagging = el("button", { type: "button", id: "tag", text: "Tag" });
    tagging.addEventListener("click", writing("Tag", async () => {
      const text = tag.value.trim();
      if (!text) return;
      await write("tag", text.startsWith("-") ? { path: at, remove: text.slice(1) } : { path: at, add: text.replace(/^\+/, "") });
      tag.value = "";
    }));
    tag.addEventListener("keydown", (event) => {
      if (event.key === "Enter") { event.preventDefault(); tagging.click(); }
    });
    const saving = el("button", { type: "button", id: "save-note", text: "Save note" });
    saving.addEventListener("click", writing("Save note", () => saveNote(note.value, noteRead)));
    editing.append(label, mark, tag, tagging, el("div", { class: "note-editor" }, note, saving));
  }

  const seek = (seconds, play) => {
    audio.currentTime = seconds;
    if (play) audio.play().catch(() => {});
  };
  const redraw = () => info && drawWave(canvas, info.waveform, info.speech, info.markers, info.duration || 1, audio.currentTime);
  const highlight = () => {
    const t = audio.currentTime;
    lines.querySelectorAll("li").forEach((li, i) => {
      const s = segments[i];
      if (!s) return;
      const next = segments[i + 1];
      const end = s.end ?? (next ? next.start : Infinity);
      const on = s.start !== null && t >= s.start && t < end;
      li.classList.toggle("now", on);
      if (on) li.setAttribute("aria-current", "true");
      else li.removeAttribute("aria-current");
    });
  };
  play.addEventListener("click", () => (audio.paused ? audio.play().catch(() => {}) : audio.pause()));
  audio.addEventListener("play", () => { play.textContent = "Pause"; });
  audio.addEventListener("pause", () => { play.textContent = "Play"; });
  speed.addEventListener("change", () => { audio.playbackRate = Number(speed.value); });
  audio.addEventListener("timeupdate", () => { redraw(); highlight(); });
  audio.addEventListener("ratechange", () => { speed.value = String(audio.playbackRate); });
  canvas.addEventListener("click", (event) => {
    if (!info) return;
    const box = canvas.getBoundingClientRect();
    seek(((event.clientX - box.left) / box.width) * info.duration, true);
  });
  canvas.addEventListener("keydown", (event) => {
    const by = { ArrowLeft: -5, ArrowRight: 5 }[event.key];
    if (by) { seek(Math.max(0, audio.currentTime + by)); event.preventDefault(); }
  });
  window.addEventListener("resize", redraw);

  // The audio here, or why not: a recording whose audio is on other machines (or lost) says
  // where its copies are, offers to bring it here, and has no player that would only fail.
  async function showAudio() {
    const here = info.size !== null && info.size !== undefined;
    for (const part of [audio, playing]) part.hidden = !here;
    absent.hidden = here;
    if (here) {
      if (!audio.getAttribute("src")) audio.src = `/audio/${uuid}`;
      return;
    }
    // `/audio/` answers 409 with where the copies are (one byte asked, in case it is here by now).
    let answer;
    try {
      answer = await fetch(`/audio/${uuid}`, { cache: "no-store", headers: { Range: "bytes=0-0" } });
    } catch {
      throw new Error(notAnswering);
    }
    const copies = answer.status === 409 ? (await answer.json()).copies || [] : [];
    const said = copies.length ? `Its copies are on ${copies.join(", ")}.` : "No other copy of it is known.";
    absent.replaceChildren(el("p", { text: `The audio of this recording is not on this machine. ${said}` }));
    if (copies.length && canWrite) {
      const get = el("button", { type: "button", id: "get", text: "Get it here" });
      get.addEventListener("click", writing("Get", async () => {
        status.textContent = "bringing the audio here…";
        get.disabled = true;
        try {
          await write("get", { path: at });
        } finally {
          get.disabled = false;
        }
        await loadInfo();
      }));
      absent.append(get);
    }
  }

  // The recording went to the trash while this page was open: nothing here can change it.
  function showTrashed(error) {
    view.leave();
    main.replaceChildren(where, el("h1", { text: info ? info.name : "Moved to the trash" }),
      el("p", { class: "notice", id: "trashed", text: "This recording was moved to the trash." }),
      el("p", { class: "quiet", text: error.message.slice(error.message.indexOf(": ") + 2) }));
    view = null;
  }

  async function loadInfo() {
    try {
      info = await api("info", { path: at });
    } catch (error) {
      if (error.body && error.body.inTrash) return showTrashed(error);
      throw error;
    }
    document.title = `${info.name} · recnotes`;
    title.textContent = info.name;
    const folder = info.path.slice(0, info.path.lastIndexOf("/")) || "/";
    where.replaceChildren(crumbs(folder));
    meta.textContent = `${clock(info.duration)} · ${date(info.created)} · ${info.format}, ${info.sampleRate} Hz`;
    download.setAttribute("download", `${info.name}.${info.file.split(".").pop()}`);
    download.textContent = `Download (${info.format})`;
    const trim = info.trim ? `trimmed to ${clock(info.trim.in)}–${clock(info.trim.out)} (${clock(info.trimmedDuration)})` : null;
    // A tag is removed by clicking it, where the page can write.
    const tagNodes = (info.tags || []).map((name) => canWrite
      ? el("button", { type: "button", class: "tag", title: `Remove the tag ${name}`, "data-tag": name, onclick: removeTag(name) }, name, " ×")
      : el("span", { class: "tag", text: name }));
    about.replaceChildren(...[
      el("p", { id: "tags" }, tagNodes.length ? tagNodes : el("span", { class: "quiet", text: "no tags" })),
      // Where the page writes, its editor shows the note; a second copy of it would only repeat it.
      !canWrite && info.note ? el("p", { class: "note", id: "note", text: info.note }) : null,
      trim ? el("p", { class: "meta", id: "trim", text: trim }) : null].filter(Boolean));
    // The editor follows the store while what it holds is what was read; a change typed in
    // it is kept, and its save finds out whether the note changed meanwhile.
    if (canWrite && (noteRead === null || note.value === noteRead)) {
      note.value = info.note || "";
      noteRead = info.note || "";
    }
    marks.replaceChildren(...(info.markers || []).map((marker) =>
      el("li", {}, el("button", { type: "button", "data-seconds": marker.seconds, onclick: () => seek(marker.seconds, true) },
        el("span", { class: "time", text: clock(marker.seconds) }), " ", marker.label || "(marker)"))));
    if (!marks.children.length) marks.append(el("li", { class: "quiet", text: "No markers." }));
    await showAudio();
    redraw();
  }

  async function loadTranscript() {
    let transcript = null;
    try {
      transcript = await api("transcript", { path: at });
    } catch (error) {
      if (error.status !== 404) throw error;
    }
    segments = (transcript && transcript.segments) || [];
    lines.replaceChildren(...segments.map((segment, index) =>
      el("li", {},
        el("a", { href: `#t=${segment.start ?? 0}`, "data-seconds": segment.start ?? 0, text: clock(segment.start) }),
        " ", canWrite ? correctable(segment, index) : el("span", { text: segment.text }))));
    // A transcript in which nothing was heard is no transcript to read.
    if (!segments.length) lines.replaceChildren(el("li", { class: "quiet", text: transcript ? "Nothing was heard." : "No transcript." }));
    highlight();
    await loadTopics(Boolean(transcript));
  }

  // Topics and chapters come from the transcript: each with its moments, which play from there.
  async function loadTopics(transcribed) {
    const none = (text) => el("span", { class: "quiet", text });
    if (!transcribed) {
      topics.replaceChildren(none("No transcript."));
      chapters.replaceChildren(el("li", { class: "quiet", text: "No transcript." }));
      return;
    }
    const [terms, parts] = await Promise.all([api("topics", { path: at, count: 8 }), api("chapters", { path: at })]);
    topics.replaceChildren(...terms.flatMap((topic, i) => [i ? " · " : null,
      el("button", { type: "button", class: "topic", "data-term": topic.term, "data-seconds": topic.times[0] ?? 0,
        title: `said ${topic.count}× (${topic.times.map(clock).join(", ")}): play the first`,
        onclick: () => seek(topic.times[0] ?? 0, true) }, topic.term)]));
    if (!terms.length) topics.replaceChildren(none("Nothing stands out yet."));
    chapters.replaceChildren(...parts.map((chapter) =>
      el("li", {}, el("button", { type: "button", "data-seconds": chapter.start, onclick: () => seek(chapter.start, true) },
        el("span", { class: "time", text: clock(chapter.start) }), " ", chapter.words.join(", ")))));
    if (!parts.length) chapters.append(el("li", { class: "quiet", text: "One subject throughout." }));
  }

  // A segment's words, each of which a double click (or Enter) makes a field to correct it in:
  // Enter saves the segment with that word changed (its times are kept by the server's
  // alignment), Escape leaves it as it was.
  function correctable(segment, index) {
    const words = segment.text.split(/\s+/).filter(Boolean);
    const text = el("span", { class: "segment" });
    words.forEach((word, position) => {
      if (position) text.append(" ");
      const span = el("span", { class: "word", tabindex: "0", "data-word": position, title: "Double-click to correct", text: word });
      const edit = () => {
        const field = el("input", { type: "text", class: "word-edit", value: word, "aria-label": `Correct “${word}”`, size: String(Math.max(word.length, 4)) });
        span.replaceWith(field);
        field.focus();
        field.select();
        let done = false;
        const finish = async (save) => {
          if (done) return;
          done = true;
          const typed = field.value.trim();
          if (!save || typed === word) { field.replaceWith(span); span.focus(); return; }
          const changed = words.slice();
          changed.splice(position, 1, ...typed.split(/\s+/).filter(Boolean));
          try {
            const answer = await write("correct", { path: at, segment: index, version: noteVersion(segment.text) }, changed.join(" "));
            offerWords(answer.newWords || []);
          } catch (error) {
            field.replaceWith(span);
            status.textContent = inPageTerms("Correct", error);
            if (error.status === 409) await loadTranscript();
          }
        };
        field.addEventListener("keydown", (event) => {
          if (event.key === "Enter") { event.preventDefault(); finish(true); }
          else if (event.key === "Escape") { event.preventDefault(); finish(false); }
        });
        field.addEventListener("blur", () => finish(false));
      };
      span.addEventListener("dblclick", edit);
      span.addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); edit(); } });
      text.append(span);
    });
    return text;
  }

  // Asked once for the names a correction brought in: added to your words, Whisper hears them.
  function offerWords(names) {
    if (!names.length) { offer.hidden = true; return; }
    const add = el("button", { type: "button", id: "add-words", text: "Add to my words" });
    const no = el("button", { type: "button", id: "skip-words", text: "Not now" });
    add.addEventListener("click", writing("Add words", async () => {
      await write("words", names.map((name) => ["add", name]));
      offer.hidden = true;
      status.textContent = `added ${names.join(", ")} to your words`;
    }));
    no.addEventListener("click", () => { offer.hidden = true; });
    offer.replaceChildren(el("p", { text: `Add ${names.map((n) => `“${n}”`).join(", ")} to your words, so that transcribing hears ${names.length > 1 ? "them" : "it"}?` }),
      el("div", { class: "controls" }, add, no));
    offer.hidden = false;
  }

  view = {
    uuid,
    // A browser keeps six connections to a server; a media element that is not emptied holds
    // one after its page is gone, so the next page would wait for a free one.
    leave() {
      window.removeEventListener("resize", redraw);
      audio.pause();
      audio.removeAttribute("src");
      audio.load();
    },
    async refresh(event) {
      if (!event || event.type === "store") await loadInfo();
      if (view !== this) return;
      if (!event || event.type === "store" || event.data === uuid) await loadTranscript();
    },
    // `#t=SECONDS`: a search hit or a transcript line's moment.
    hash() {
      const match = /^#t=([0-9.]+)/.exec(location.hash);
      if (match) seek(Number(match[1]), true);
    },
  };
  await view.refresh();
  if (view) view.hash();
}

async function render() {
  if (view && view.leave) view.leave();
  view = null;
  const recording = /^\/r\/([0-9a-fA-F-]{36})$/.exec(location.pathname);
  const parameters = new URLSearchParams(location.search);
  try {
    if (recording) await showRecording(recording[1]);
    else if (["text", "tag", "after", "before"].some((key) => parameters.get(key))) await showFind(parameters);
    else await showFolder(parameters);
  } catch (error) {
    main.replaceChildren(el("h1", { text: "Not here" }), el("p", { class: "error", text: error.message }));
    view = null;
  }
}

// Links inside the page change the view without reloading (a playing recording keeps playing
// until another page is shown).
function go(href) {
  history.pushState(null, "", href);
  render();
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a");
  if (!link || link.hasAttribute("download") || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) {
    return;
  }
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin) return;
  event.preventDefault();
  if (url.pathname === location.pathname && url.search === location.search && url.hash) {
    history.replaceState(null, "", url.hash);
    if (view && view.hash) view.hash();
  } else {
    go(url.pathname + url.search + url.hash);
  }
});

window.addEventListener("popstate", render);
window.addEventListener("hashchange", () => view && view.hash && view.hash());

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const query = new URLSearchParams();
  for (const key of ["text", "tag", "after", "before"]) {
    if (form.elements[key].value) query.set(key, form.elements[key].value);
  }
  go("/?" + query);
});

// Keys on a recording's page, outside a text field: space or k plays and pauses, j and l go
// back and on 5 seconds. / goes to the search box anywhere.
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "/") {
    form.elements.text.focus();
    event.preventDefault();
    return;
  }
  const audio = document.getElementById("player");
  if (!audio) return;
  if ((event.key === " " && !event.target.closest("button, a")) || event.key === "k") {
    if (audio.paused) audio.play().catch(() => {});
    else audio.pause();
    event.preventDefault();
  } else if (event.key === "j" || event.key === "l") {
    audio.currentTime = Math.max(0, audio.currentTime + (event.key === "j" ? -5 : 5));
  }
});

// Live: another process's change to the store shows without a reload. The stream is closed
// while the page is hidden in the back-forward cache (it would hold one of the six
// connections), and opened again, with a refresh, when it comes back.
let events = null;
function listen() {
  events = new EventSource("/api/events");
  const changed = async (event) => {
    if (!view) return;
    try {
      await view.refresh(event);
      status.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    } catch (error) {
      status.textContent = error.message;
    }
  };
  events.addEventListener("store", changed);
  events.addEventListener("transcript", (event) => {
    // The live words of a recording are done with once its transcript is saved.
    const live = document.getElementById("live-words");
    if (live.dataset.uuid === event.data) live.hidden = true;
    changed(event);
  });
  // A recording in progress with live words: all its words so far, the latest shown.
  events.addEventListener("words", (event) => {
    const { uuid, text } = JSON.parse(event.data);
    const live = document.getElementById("live-words");
    live.dataset.uuid = uuid;
    live.textContent = text;
    live.hidden = text === "";
    live.scrollLeft = live.scrollWidth;
  });
  events.addEventListener("open", () => {
    if (document.body.dataset.live === "0" && status.textContent === notAnswering) status.textContent = "";
    document.body.dataset.live = "1";
  });
  // The stream ends when the server stops; the browser keeps trying, and says so meanwhile.
  events.addEventListener("error", () => {
    document.body.dataset.live = "0";
    status.textContent = notAnswering;
  });
}

window.addEventListener("pagehide", () => {
  if (view && view.leave) view.leave();
  if (events) events.close();
});
window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  listen();
  render();
});

// Once every deferred script has run (record.js too, whose Record button a folder's page
// offers): with no server, the first request fails before a script still loading has run.
document.addEventListener("DOMContentLoaded", () => {
  render();
  listen();
});

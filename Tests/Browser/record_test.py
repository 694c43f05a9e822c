#!/usr/bin/python3
"""Recording in recnotes serve's page, in headless Chromium whose fake microphone plays real
speech (three LibriVox clips of pocketsphinx-testdata, one after another, looped).

Run by Tests/EndToEndTests/ServeBrowserTests.swift on an empty store. The script starts the
server itself (`recnotes serve --listen 127.0.0.1:PORT`), so that it can kill it with SIGKILL
mid-recording and start it again on the same port. Each check records through the page's
Record control and looks at what the CLI then says of the store: duration against the time
recorded, the audio against the clip (the envelope's correlation at the best lag), history
and undo. Prints one line a check and ends with 'N passed, N failed', status 1 when any failed.
"""

import argparse
import array
import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
import wave

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from checks import Checks

parser = argparse.ArgumentParser()
parser.add_argument("--recnotes", required=True)
parser.add_argument("--store", required=True)
parser.add_argument("--home", required=True)
parser.add_argument("--clips", required=True, nargs="+", help="16-bit mono WAV files of speech")
parser.add_argument("--only", help="run only the checks whose name holds this")
parser.add_argument("--listen", default="127.0.0.1", help="the address to serve on")
parser.add_argument("--tls", action="store_true", help="serve --tls (its certificate is trusted for the run)")
parser.add_argument("--abandon-after", help="seconds before the server saves a recording its page left")
parser.add_argument("--live-words", action="store_true",
                    help="the store has Whisper installed: check the live words of a page's recording")
args = parser.parse_args()
environment = dict(os.environ, HOME=args.home, NO_COLOR="1", TZ="UTC")
if args.abandon_after:
    environment["RECNOTES_SERVE_ABANDON_AFTER"] = args.abandon_after

# The fake microphone's file: the clips with half a second of silence between them.
speech = os.path.join(args.home, "speech.wav")
clip_rate = None
clip = array.array("h")
for path in args.clips:
    with wave.open(path) as w:
        assert w.getnchannels() == 1 and w.getsampwidth() == 2, path
        clip_rate = clip_rate or w.getframerate()
        assert w.getframerate() == clip_rate, path
        clip.frombytes(w.readframes(w.getnframes()))
        clip.extend([0] * (clip_rate // 2))
with wave.open(speech, "wb") as w:
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(clip_rate)
    w.writeframes(clip.tobytes())


def cli(*arguments):
    return subprocess.run([args.recnotes, "--store", args.store, *arguments], check=True, env=environment,
                          capture_output=True, text=True).stdout


def free_port():
    with socket.socket() as s:
        s.bind((args.listen, 0))
        return s.getsockname()[1]


port = free_port()
server = None
server_errors = open(os.path.join(args.home, "serve.err"), "ab")


def start_server():
    global server
    command = [args.recnotes, "--store", args.store, "serve", "--listen", f"{args.listen}:{port}"]
    server = subprocess.Popen(command + (["--tls"] if args.tls else []), env=environment, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=server_errors)
    url = server.stdout.readline().decode().strip()
    scheme = "https" if args.tls else "http"
    assert url.startswith(f"{scheme}://{args.listen}:"), f"serve printed {url!r}"
    # Off the loopback the URL carries the token, which the first visit turns into a cookie.
    global entry
    entry = url
    return url.split("?")[0].rstrip("/")


entry = None


def stop_server(sig=signal.SIGTERM):
    if server and server.poll() is None:
        server.send_signal(sig)
        server.wait(timeout=30)


base = start_server()

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless=new", "--autoplay-policy=no-user-gesture-required", "--no-sandbox",
             "--disable-dev-shm-usage", "--window-size=1280,900", "--mute-audio",
             "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
             f"--use-file-for-fake-audio-capture={speech}"]:
    options.add_argument(flag)
if args.tls:
    # The made certificate, trusted for this run alone (a user installs it on the phone).
    options.add_argument("--ignore-certificate-errors")
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(30)
driver.get(entry)

def what_the_page_shows():
    print(f"  the recorder said: {driver.find_element(By.ID, 'recorder').text!r}; the page: "
          f"{driver.find_element(By.ID, 'status').text!r}; {driver.find_element(By.ID, 'main').text!r}", flush=True)


checks = Checks(driver, on_failure=what_the_page_shows)


def check(name, body):
    if not args.only or args.only in name:
        checks.check(name, body)


def until(what, condition, timeout=15):
    return checks.until(what, condition, timeout, poll=0.05)


def state():
    return driver.execute_script("return document.getElementById('recorder').dataset.state")


def record_status():
    return driver.find_element(By.ID, "record-status").text


def listed(folder="/"):
    return {item["name"]: item for item in json.loads(cli("ls", folder, "--json"))}


def begin(folder="/"):
    """Opens the folder's page and starts recording; returns when the page says it records."""
    driver.get(base + "/?path=" + folder)
    until("the Record button", lambda: driver.find_element(By.ID, "record").is_displayed())
    driver.find_element(By.ID, "record").click()
    until("recording", lambda: state() == "recording")
    return time.monotonic()


def finish(name, started, paused=0.0):
    """Stops, names the recording and waits until the library has it; returns its item and the
    seconds recorded, by the clock, between the page saying it records and Stop. The item holds
    every frame the page captured, not one fewer or more."""
    driver.find_element(By.ID, "record-stop").click()
    recorded = time.monotonic() - started - paused
    until("the name asked", lambda: driver.find_element(By.ID, "record-naming").is_displayed())
    captured = int(driver.execute_script("return document.getElementById('recorder').dataset.frames"))
    field = driver.find_element(By.ID, "record-name")
    assert field.get_attribute("value").startswith("Recording "), field.get_attribute("value")
    field.clear()
    field.send_keys(name)
    driver.find_element(By.ID, "record-save").click()
    until(f"{name} in the library", lambda: name in listed(), timeout=60)
    until("the page saying it is saved", lambda: record_status().startswith("Saved"), timeout=20)
    item = listed()[name]
    assert item["frames"] == captured, f"{item['frames']} frames saved, {captured} captured"
    return item, recorded


def envelope(samples, rate, step=0.01):
    size = int(rate * step)
    return [math.sqrt(sum(s * s for s in samples[i:i + size]) / size) for i in range(0, len(samples) - size + 1, size)]


def correlation(a, b):
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    den = math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))
    return num / den if den else 0.0


clip_envelope = envelope(clip, clip_rate)


def heard_the_clip(path):
    """The recording's envelope against the clip's (looped), at the best lag: the speech that
    was played, in order, and nothing else in its place."""
    exported = os.path.join(args.home, "heard.wav")
    if os.path.exists(exported):
        os.unlink(exported)
    cli("export", path, exported)
    with wave.open(exported) as w:
        rate = w.getframerate()
        samples = array.array("h", w.readframes(w.getnframes()))
    heard = envelope(samples, rate)
    looped = clip_envelope + clip_envelope
    best = max(correlation(heard, looped[lag:lag + len(heard)]) for lag in range(0, len(clip_envelope)))
    return best


def records_and_names_it():
    started = begin("/")
    assert driver.execute_script("return window.isSecureContext"), "not a secure context"
    until("the level moving", lambda: float(driver.find_element(By.ID, "record-level").get_attribute("value")) > 0.01)
    time.sleep(max(0, 8 - (time.monotonic() - started)))
    item, recorded = finish("from the page", started)
    assert abs(item["duration"] - recorded) <= 0.5, f"{item['duration']} s saved, {recorded:.2f} s recorded"
    assert item["format"] == "opus", item
    best = heard_the_clip("/from the page")
    assert best > 0.8, f"the recording's envelope matches the clip's at {best:.2f} at best"
    history = json.loads(cli("history", "--json"))
    assert any("a recording made in the page, saved as from the page" in (e.get("summary") or "") for e in history), history[:2]
    cli("undo")
    assert "from the page" not in listed(), "undo left it"


def pause_and_mark():
    started = begin("/")
    time.sleep(2)
    # When it was clicked, by the clock: a loaded machine may take a while to click.
    before = time.monotonic() - started
    driver.find_element(By.ID, "record-mark").click()
    after = time.monotonic() - started
    driver.find_element(By.ID, "record-pause").click()
    until("paused", lambda: state() == "paused")
    paused_at = time.monotonic()
    time.sleep(2)
    driver.find_element(By.ID, "record-pause").click()
    until("recording again", lambda: state() == "recording")
    paused = time.monotonic() - paused_at
    time.sleep(2)
    item, recorded = finish("paused take", started, paused)
    assert abs(item["duration"] - recorded) <= 0.5, f"{item['duration']} s saved, {recorded:.2f} s recorded"
    marks = json.loads(cli("marks", "/paused take", "--json"))
    assert len(marks) == 1 and before - 0.5 <= marks[0]["seconds"] <= after + 0.5, (before, after, marks)


def cancel_goes_to_the_trash():
    begin("/")
    time.sleep(1.5)
    driver.find_element(By.ID, "record-cancel").click()
    until("the page saying it is in the trash", lambda: record_status().startswith("Moved to the trash"), timeout=20)
    trash = json.loads(cli("trash", "ls", "--json"))
    assert any(entry["name"].startswith("Recording ") for entry in trash), trash


def a_server_killed_mid_recording():
    global base
    started = begin("/")
    time.sleep(3)
    stop_server(signal.SIGKILL)
    down = time.monotonic()
    until("the page saying it keeps the audio", lambda: "kept here" in record_status(), timeout=20)
    time.sleep(max(0, 10 - (time.monotonic() - down)))
    assert start_server() == base
    time.sleep(3)
    item, recorded = finish("through a restart", started)
    assert abs(item["duration"] - recorded) <= 0.5, f"{item['duration']} s saved, {recorded:.2f} s recorded"
    best = heard_the_clip("/through a restart")
    assert best > 0.8, f"the recording's envelope matches the clip's at {best:.2f} at best"


def network(online):
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": not online, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


def a_drop_longer_than_the_server_waits():
    # Run with --abandon-after: the server saves what it has once the page is silent that long.
    started = begin("/")
    time.sleep(2)
    network(online=False)
    try:
        until("the page saying it keeps the audio", lambda: "kept here" in record_status(), timeout=20)
        until("the server saving it without its page",
              lambda: any(name.endswith("(from the page)") for name in listed()), timeout=30)
    finally:
        network(online=True)
    until("the page sending the rest as a recording of its own", lambda: "without this page" in record_status(),
          timeout=30)
    time.sleep(2)
    driver.find_element(By.ID, "record-stop").click()
    recorded = time.monotonic() - started
    until("the name asked", lambda: driver.find_element(By.ID, "record-naming").is_displayed())
    named = driver.find_element(By.ID, "record-name").get_attribute("value")
    assert named.endswith("(from the page) (continued)"), named
    driver.find_element(By.ID, "record-save").click()
    until("the rest in the library", lambda: named in listed(), timeout=60)
    items = listed()
    first = next(item for name, item in items.items() if name.endswith("(from the page)"))
    rest = items[named]
    total = first["duration"] + rest["duration"]
    assert first["duration"] > 1 and rest["duration"] > 2, (first["duration"], rest["duration"])
    assert abs(total - recorded) <= 0.5, f"{first['duration']} + {rest['duration']} s saved, {recorded:.2f} s recorded"


def offline_mid_recording():
    started = begin("/")
    time.sleep(2)
    network(online=False)
    dropped = time.monotonic()
    try:
        until("the page saying it keeps the audio", lambda: "kept here" in record_status(), timeout=20)
        time.sleep(max(0, 10 - (time.monotonic() - dropped)))
        kept = driver.execute_async_script("""
          const done = arguments[arguments.length - 1];
          indexedDB.open("recnotes-recordings").onsuccess = (e) => {
            const get = e.target.result.transaction("chunks").objectStore("chunks").count();
            get.onsuccess = () => done(get.result);
          };""")
        assert kept >= 8, f"{kept} chunks kept in the page through 10 s offline"
    finally:
        network(online=True)
    time.sleep(2)
    item, recorded = finish("through a drop", started)
    assert abs(item["duration"] - recorded) <= 0.5, f"{item['duration']} s saved, {recorded:.2f} s recorded"
    best = heard_the_clip("/through a drop")
    assert best > 0.8, f"the recording's envelope matches the clip's at {best:.2f} at best"


def installed_it_opens_and_records_with_no_server():
    driver.get(base + "/")
    driver.set_script_timeout(30)
    driver.execute_async_script("navigator.serviceWorker.ready.then(() => arguments[arguments.length - 1]())")
    # A page opened before its worker was active is in its charge from the next visit on.
    driver.get(base + "/")
    until("the service worker in charge",
          lambda: driver.execute_script("return Boolean(navigator.serviceWorker.controller)"), timeout=30)
    manifest = driver.execute_async_script("""
      const done = arguments[arguments.length - 1];
      fetch(document.querySelector("link[rel=manifest]").href).then((r) => r.json()).then(done, () => done(null));""")
    assert manifest and manifest["display"] == "standalone" and manifest["icons"], manifest
    stop_server()
    # The page opens from what the service worker kept, and records into IndexedDB.
    driver.get(base + "/?path=/")
    until("the Record button with no server", lambda: driver.find_element(By.ID, "record").is_displayed())
    until("the list saying so", lambda: "not answering" in driver.find_element(By.ID, "items").text)
    driver.find_element(By.ID, "record").click()
    until("recording", lambda: state() == "recording")
    started = time.monotonic()
    time.sleep(4)
    driver.find_element(By.ID, "record-stop").click()
    recorded = time.monotonic() - started
    until("the name asked", lambda: driver.find_element(By.ID, "record-naming").is_displayed())
    driver.find_element(By.ID, "record-name").send_keys("made offline")
    driver.find_element(By.ID, "record-save").click()
    until("the page saying it keeps the audio", lambda: "kept here" in record_status(), timeout=20)
    assert start_server() == base
    until("made offline in the library", lambda: "made offline" in listed(), timeout=60)
    item = listed()["made offline"]
    assert abs(item["duration"] - recorded) <= 0.5, f"{item['duration']} s saved, {recorded:.2f} s recorded"


def live_words_while_the_page_records():
    # The words of the speech show under the recorder while it records, and once saved the
    # recording has its transcript, and the words are done with.
    started = begin("/")
    shown = lambda: driver.execute_script(
        "const p = document.getElementById('live-words'); return p.hidden ? null : p.textContent")
    until("words while recording", lambda: len((shown() or "").split()) >= 3, timeout=40)
    assert state() == "recording", state()
    words = shown()
    finish("heard live", started)
    until("its transcript", lambda: subprocess.run(
        [args.recnotes, "--store", args.store, "transcript", "/heard live"], env=environment,
        capture_output=True).returncode == 0, timeout=60)
    transcript = cli("transcript", "/heard live")
    assert len(transcript.split()) >= len(words.split()), f"{transcript!r} against the live {words!r}"
    until("the live words gone", lambda: shown() is None, timeout=20)


try:
    if args.live_words:
        check("live words while the page records, and the transcript once saved", live_words_while_the_page_records)
    check("a recording through the page, named, in history, and undone", records_and_names_it)
    check("pause and a marker", pause_and_mark)
    check("cancel moves it to the trash", cancel_goes_to_the_trash)
    check("a server killed mid-recording loses nothing", a_server_killed_mid_recording)
    check("a network drop mid-recording loses nothing", offline_mid_recording)
    check("installed, it opens and records with no server", installed_it_opens_and_records_with_no_server)
    if args.abandon_after:
        check("a drop longer than the server waits: the rest is a recording of its own",
              a_drop_longer_than_the_server_waits)
finally:
    driver.quit()
    stop_server()

print(f"record checks: {checks.passed} passed, {checks.failed} failed", flush=True)
sys.exit(1 if checks.failed else 0)
